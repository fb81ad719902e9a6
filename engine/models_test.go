package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func TestCheckModel(t *testing.T) {
	ollama := ollamatest.New(t)
	for _, c := range []struct {
		name    string
		backend string
		model   string
		served  []string // nil: the model is accepted
	}{
		{"demo's own", BackendDemo, "toolscope-demo", nil},
		{"demo, the default", BackendDemo, "", nil},
		{"demo, another", BackendDemo, "gpt-4", []string{"toolscope-demo"}},
		{"ollama, pulled", BackendOllama, "qwen3:4b", nil},
		{"ollama, pulled, tag left out", BackendOllama, "qwen3", []string{"qwen3:4b"}},
		{"ollama, made up", BackendOllama, "no-such-model", []string{"qwen3:4b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := Start(context.Background(), Settings{Backend: c.backend, OllamaHost: ollama.Host(), Model: "qwen3:8b"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := e.Settings()
			if c.model != "" {
				s.Model = c.model
			}
			err = e.CheckModel(context.Background(), s)
			var me *ModelError
			switch {
			case c.served == nil && err != nil:
				t.Fatalf("CheckModel = %v, want the model accepted", err)
			case c.served != nil && (!errors.As(err, &me) || !slices.Equal(me.Served, c.served)):
				t.Fatalf("CheckModel = %v, want a *ModelError listing %v", err, c.served)
			}
			if n := len(e.backends.byKey); n > 1 {
				t.Errorf("%d backends built; a checked name must not get its own", n)
			}
		})
	}
}

// A backend that serves no model gets advice only Ollama's can follow.
func TestModelErrorAdvice(t *testing.T) {
	for backend, want := range map[string]string{
		BackendOllama: "pull one with 'ollama pull'",
		BackendOpenAI: "the server lists no model",
	} {
		got := (&ModelError{Model: "x", Backend: backend}).Error()
		if !strings.Contains(got, want) || backend != BackendOllama && strings.Contains(got, "ollama pull") {
			t.Errorf("%s: %q, want it to say %q", backend, got, want)
		}
	}
}
