package server

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/toolscope/toolscope/runs"
)

// withLimitDefaults fills in the timeouts and caps left zero.
func (cfg *Config) withLimitDefaults() {
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	cfg.Strangers.withDefaults(cfg.MaxConns)
}

// minReturnInterval spaces out the returns of memory to the system: one
// person running one request after another empties the hub each time.
const minReturnInterval = 10 * time.Second

// settle is how long after the last run ends memory is returned: its
// viewers are still reading the last events.
const settle = time.Second

// returnMemory gives the memory freed by a load back to the system once
// the last run has ended and its streams have closed. Go's scavenger would
// return it only over minutes; a machine that served a class should not
// hold it that long. Measured with cmd/load (500 runs, 100 kept):
// RSS 70 MiB 5 s after the load without the two collections, 58 MiB
// with them (19 MiB idle before the load; 10 MiB of finished runs kept).
func returnMemory(hub *runs.Hub) func() {
	var mu sync.Mutex
	var last time.Time
	return func() {
		time.Sleep(settle)
		mu.Lock()
		defer mu.Unlock()
		if hub.Live() > 0 || time.Since(last) < minReturnInterval {
			return
		}
		last = time.Now()
		// The first collection only moves sync.Pool's buffers, fasthttp's
		// among them, to its victim cache; the second frees them.
		runtime.GC()
		debug.FreeOSMemory()
	}
}
