package engine_test

import (
	"context"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func TestSamplingReachesTheBackend(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Reply(ollamatest.Reply{Text: "Hello."})
	s := engine.Settings{Backend: engine.BackendOllama, OllamaHost: srv.Host()}
	e, _ := start(t, s)
	seed := int64(7)
	s.Sampling = &llm.Sampling{Seed: &seed}
	a, err := e.Agent(s)
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Run(context.Background(), &agent.Conversation{}, "Hi", func(agent.Event) {}); res.Reason != agent.Answered {
		t.Fatalf("run ended %v: %v", res.Reason, res.Err)
	}
	if got := srv.Requests()[0].Options["seed"]; got != 7.0 {
		t.Errorf("Ollama got seed %v, want 7", got)
	}
}
