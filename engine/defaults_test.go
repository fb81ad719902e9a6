package engine_test

import (
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
)

// An unset model is settled by one rule, once the backend is known: the
// defaults a command line starts from name no model, and Start gives
// Ollama its default model and leaves an OpenAI-compatible server's choice
// to it, so that it runs the one model it serves.
func TestAnUnsetModelIsTheBackendsDefault(t *testing.T) {
	if m := engine.Defaults().Model; m != "" {
		t.Fatalf("Defaults names model %q before the backend is known", m)
	}
	s := engine.Defaults()
	s.Backend, s.OpenAIBaseURL = engine.BackendOpenAI, openaitest.New(t).URL()
	if e, _ := start(t, s); e.Settings().Model != "" || e.Backend().Info().Model != openaitest.DefaultModel {
		t.Errorf("openai: model %q, runs %q; want none named, the server's own run", e.Settings().Model, e.Backend().Info().Model)
	}
	s = engine.Defaults()
	s.Backend, s.OllamaHost = engine.BackendOllama, ollamatest.New(t).Host()
	if e, _ := start(t, s); e.Settings().Model != engine.DefaultModel {
		t.Errorf("ollama: model %q, want %q", e.Settings().Model, engine.DefaultModel)
	}
}
