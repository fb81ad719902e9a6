package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/llm/ollama"
)

// maxBackends bounds the backend cache: each request may name a model, and
// a server must not keep one client per name it was ever sent.
const maxBackends = 16

// backendKey is what makes two backends differ.
type backendKey struct {
	backend, host, model string
	mode                 llm.Mode
	demoDelay            time.Duration
}

// backendCache keeps one backend per distinct backendKey, the most
// recently used ones when there are more than it may hold.
type backendCache struct {
	mu    sync.Mutex
	max   int
	order []backendKey // least recently used first
	byKey map[backendKey]llm.Backend
}

func newBackendCache(max int) *backendCache {
	return &backendCache{max: max, byKey: make(map[backendKey]llm.Backend)}
}

func (c *backendCache) get(key backendKey) (llm.Backend, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.byKey[key]; ok {
		c.touch(key)
		return b, nil
	}
	b, err := newBackend(key)
	if err != nil {
		return nil, err
	}
	if len(c.order) == c.max {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[key] = b
	c.order = append(c.order, key)
	return b, nil
}

func (c *backendCache) touch(key backendKey) {
	for i, k := range c.order {
		if k == key {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), key)
			return
		}
	}
}

func newBackend(k backendKey) (llm.Backend, error) {
	switch k.backend {
	case BackendOllama:
		return ollama.New(ollama.Config{Host: k.host, Model: k.model, Mode: k.mode})
	case BackendDemo:
		return demo.New(demo.Config{TokenDelay: k.demoDelay}), nil
	}
	return nil, errUnsettled
}

// errUnsettled is never seen by users: Agent settles BackendAuto first.
var errUnsettled = errors.New("engine: backend auto reached the backend cache unsettled")
