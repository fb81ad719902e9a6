package runs

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
)

// Defaults of Limits fields left zero.
const (
	DefaultMaxLive      = 64
	DefaultMaxRunEvents = 20_000
	DefaultMaxRunBytes  = 8 << 20
	DefaultKeepBytes    = 64 << 20
	DefaultPauseTimeout = 30 * time.Minute
)

// Limits bound what a Hub holds, so that no request, however large, and
// no crowd of them can exhaust the server's memory.
type Limits struct {
	// MaxLive is the most runs in progress at once; Start refuses more
	// with ErrTooManyRuns.
	MaxLive int
	// MaxRunEvents and MaxRunBytes bound one run's events, counting
	// bytes of their JSON. A run that
	// would outgrow them is stopped: its last events are an Error event
	// saying so, a *LimitError, and run_finished.
	MaxRunEvents int
	MaxRunBytes  int
	// KeepBytes bounds the finished runs kept, besides their number: the
	// oldest are dropped first, the newest always kept.
	KeepBytes int
	// PauseTimeout is how long a run in step mode waits at a pause: then
	// it is stopped, its last events an Error event saying so, a
	// *PauseTimeoutError, and run_finished. A pause forgotten in a tab
	// would otherwise hold its place among MaxLive for ever.
	PauseTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxLive <= 0 {
		l.MaxLive = DefaultMaxLive
	}
	if l.MaxRunEvents <= 0 {
		l.MaxRunEvents = DefaultMaxRunEvents
	}
	if l.MaxRunBytes <= 0 {
		l.MaxRunBytes = DefaultMaxRunBytes
	}
	if l.KeepBytes <= 0 {
		l.KeepBytes = DefaultKeepBytes
	}
	if l.PauseTimeout <= 0 {
		l.PauseTimeout = DefaultPauseTimeout
	}
	return l
}

// LimitError is why a run was stopped: it reached one of its limits.
type LimitError struct {
	Events, Bytes int // what the run had recorded
	// Limit is the bound reached: "events" or "bytes".
	Limit string
	Max   int
}

func (e *LimitError) Error() string {
	if e.Limit == "events" {
		return fmt.Sprintf("the run was stopped: it reached the limit of %d events a run may record", e.Max)
	}
	return fmt.Sprintf("the run was stopped: it reached the limit of %d MiB of events a run may record", e.Max>>20)
}

// exceeded says which limit a run with events and bytes recorded reached.
func (l Limits) exceeded(events, bytes int) *LimitError {
	if events+3 > l.MaxRunEvents {
		return &LimitError{Events: events, Bytes: bytes, Limit: "events", Max: l.MaxRunEvents}
	}
	return &LimitError{Events: events, Bytes: bytes, Limit: "bytes", Max: l.MaxRunBytes}
}

// PauseTimeoutError is why a run in step mode was stopped: nobody
// continued it within Limits.PauseTimeout of its pause.
type PauseTimeoutError struct {
	Timeout time.Duration
	At      agent.Point // where the run waited
	Round   int
}

func (e *PauseTimeoutError) Error() string {
	return fmt.Sprintf("the run was stopped: nobody continued it within %s of its pause in round %d (the server's pause timeout)", ShortDuration(e.Timeout), e.Round)
}

// ShortDuration writes d as people do, for messages that name a limit:
// "30m" where Duration.String says "30m0s".
func ShortDuration(d time.Duration) string {
	s := d.String()
	if d >= time.Minute && d%time.Minute == 0 {
		s = strings.TrimSuffix(s, "0s")
	}
	if d >= time.Hour && d%time.Hour == 0 {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
