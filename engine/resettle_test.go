package engine_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/llm/template"
)

// After a fallback for a model Ollama lacked, Resettle switches to Ollama
// once the model is there: agents built from then on run on it, in the
// mode asked for, and an agent built before finishes on the demo model.
func TestResettleSwitchesToTheModelOnceItIsPulled(t *testing.T) {
	srv := ollamatest.New(t)
	srv.RemoveModel("qwen3:4b")
	e, _ := start(t, engine.Settings{OllamaHost: srv.Host(), Mode: llm.ModeChat})
	if f := e.Fallback(); f == nil || !errors.Is(f.Cause, ollama.ErrNotPulled) || e.Settings().Mode != llm.ModeRaw {
		t.Fatalf("fallback %v in mode %q, want the demo model, in raw mode, because the model is not pulled", f, e.Settings().Mode)
	}
	before, err := e.Agent(e.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if f := e.Resettle(t.Context()); f == nil || !errors.Is(f.Cause, ollama.ErrNotPulled) || !e.Backend().Info().Demo {
		t.Fatalf("Resettle with the model still missing = %v, backend %+v; want the fallback kept", f, e.Backend().Info())
	}

	srv.AddModel("qwen3:4b", ollamatest.Model{Template: template.Qwen3, Family: "qwen3"}) // pulled meanwhile
	// Runs are being built while the engine switches.
	var building sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		building.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := e.Agent(e.Settings()); err != nil {
					t.Error(err)
					return
				}
				_ = e.Backend().Info()
			}
		})
	}
	f := e.Resettle(t.Context())
	close(stop)
	building.Wait()
	if f != nil || e.Fallback() != nil {
		t.Fatalf("Resettle = %v, Fallback() = %v; want none once the model is there", f, e.Fallback())
	}
	if s, info := e.Settings(), e.Backend().Info(); s.Backend != engine.BackendOllama || info.Backend != "ollama" || info.Model != "qwen3:4b" || s.Mode != llm.ModeChat {
		t.Fatalf("after Resettle: settings backend %q mode %q, backend %+v; want qwen3:4b on Ollama in chat mode", s.Backend, s.Mode, info)
	}

	if res := before.Run(t.Context(), &agent.Conversation{}, "hello", func(agent.Event) {}); res.Reason != agent.Answered || len(srv.Requests()) != 0 {
		t.Fatalf("the agent built before: %+v, %d requests to Ollama; want it answered by the demo model", res, len(srv.Requests()))
	}
	srv.Reply(ollamatest.Reply{Text: "Hello."})
	after, err := e.Agent(e.Settings())
	if err != nil {
		t.Fatal(err)
	}
	if res := after.Run(t.Context(), &agent.Conversation{}, "hello", func(agent.Event) {}); res.Reason != agent.Answered || len(srv.Requests()) != 1 {
		t.Fatalf("the agent built after: %+v, %d requests to Ollama; want it answered by Ollama", res, len(srv.Requests()))
	}
	if f := e.Resettle(t.Context()); f != nil || e.Settings().Backend != engine.BackendOllama {
		t.Errorf("a second Resettle = %v, backend %q; want nothing changed", f, e.Settings().Backend)
	}
}

// Without a fallback there is nothing to settle again.
func TestResettleWithoutFallbackChangesNothing(t *testing.T) {
	e, _ := start(t, engine.Settings{Backend: engine.BackendDemo})
	backend := e.Backend()
	if f := e.Resettle(t.Context()); f != nil || e.Backend() != backend {
		t.Errorf("Resettle = %v, backend %p then %p; want no change", f, backend, e.Backend())
	}
}
