package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/openai"
)

// maxBackends bounds the backend cache: each request may name a model, and
// a server must not keep one client per name it was ever sent.
const maxBackends = 16

// backendKey is what makes two backends differ.
type backendKey struct {
	backend, host, model string
	mode                 llm.Mode
	demoDelay            time.Duration
	// The OpenAI-compatible server's; host is Ollama's.
	baseURL, apiKey, template string
}

// keyOf is the key of the backend that s describes: only the settings its
// kind of backend reads, so that runs alike share one backend.
func keyOf(s Settings) backendKey {
	switch s.Backend {
	case BackendDemo:
		return backendKey{backend: BackendDemo, demoDelay: s.DemoDelay} // it has one model and one mode
	case BackendOpenAI:
		return backendKey{backend: BackendOpenAI, model: s.Model, mode: s.Mode, baseURL: s.OpenAIBaseURL, apiKey: s.OpenAIAPIKey, template: s.Template}
	}
	return backendKey{backend: s.Backend, host: s.OllamaHost, model: s.Model, mode: s.Mode}
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
	case BackendOpenAI:
		return openai.New(openai.Config{BaseURL: k.baseURL, APIKey: k.apiKey, Model: k.model, Mode: k.mode, Template: k.template})
	case BackendDemo:
		return demo.New(demo.Config{TokenDelay: k.demoDelay}), nil
	}
	return nil, errUnsettled
}

// errUnsettled is never seen by users: Agent settles BackendAuto first.
var errUnsettled = errors.New("engine: backend auto reached the backend cache unsettled")

// ModelError is a request's model that its backend does not serve.
type ModelError struct {
	Model   string
	Backend string   // the backend asked
	Served  []string // the models it does serve
}

func (e *ModelError) Error() string {
	switch {
	case len(e.Served) == 0 && e.Backend == BackendOllama:
		return fmt.Sprintf("model %q is not served here, and no model is: pull one with 'ollama pull'", e.Model)
	case len(e.Served) == 0:
		return fmt.Sprintf("model %q is not served here, and the server lists no model", e.Model)
	}
	return fmt.Sprintf("model %q is not served here: use %s", e.Model, either(e.Served))
}

// CheckModel reports a *ModelError when s names a model other than the
// engine's own that s's backend does not serve, so that no backend is
// built for a name a request made up. The demo backend serves only its
// own model; an OpenAI-compatible server, those /v1/models lists. Other
// errors say why the list could not be had.
func (e *Engine) CheckModel(ctx context.Context, s Settings) error {
	s = s.withDefaults()
	st := e.now()
	if s.Model == st.settings.Model {
		return nil
	}
	if s.Backend == BackendAuto {
		s.Backend = st.settings.Backend
	}
	if s.Backend == BackendOpenAI && s.Model == "" {
		return nil // the server's one model; the backend says so if it has several
	}
	var served []string
	switch s.Backend {
	case BackendDemo:
		b, err := e.backend(s)
		if err != nil {
			return err
		}
		served = []string{b.Info().Model}
	case BackendOllama:
		// The engine's own model's backend asks: a made-up name must not
		// get a cache entry of its own.
		b, err := e.backend(Settings{Backend: BackendOllama, OllamaHost: s.OllamaHost, Model: st.settings.Model, Mode: s.Mode})
		if err != nil {
			return err
		}
		if served, err = b.(*ollama.Backend).Models(ctx); err != nil {
			return err
		}
	case BackendOpenAI:
		own := s
		own.Model = st.settings.Model
		b, err := e.backend(own)
		if err != nil {
			return err
		}
		if served, err = b.(*openai.Backend).Models(ctx); err != nil {
			return err
		}
	}
	for _, m := range served {
		if m == s.Model || m == s.Model+":latest" {
			return nil
		}
	}
	return &ModelError{Model: s.Model, Backend: s.Backend, Served: served}
}
