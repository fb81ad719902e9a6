package ollama_test

import (
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func ptr[T any](v T) *T { return &v }

func TestOptionsReachOllama(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		t.Run(string(mode), func(t *testing.T) {
			s := ollamatest.New(t)
			s.Reply(ollamatest.Reply{Text: "6"})
			b := newBackend(t, s, ollama.Config{Mode: mode})
			options := &llm.Sampling{Temperature: ptr(0.2), TopP: ptr(0.9), Stop: []string{"x"}, Seed: ptr(int64(7)), MaxTokens: ptr(50)}
			in, err := b.Prepare(t.Context(), llm.Request{Messages: conversation, Options: options})
			if err != nil {
				t.Fatal(err)
			}
			if in.Options != options {
				t.Errorf("Input.Options %+v, want the request's", in.Options)
			}
			if r := stream(t.Context(), b, in); r.err != nil {
				t.Fatal(r.err)
			}
			got := s.Requests()[0].Options
			want := map[string]any{"temperature": 0.2, "top_p": 0.9, "seed": 7.0, "num_predict": 50.0}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("options[%q] = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
			if stop, _ := got["stop"].([]any); len(stop) != 1 || stop[0] != "x" {
				t.Errorf("options[stop] = %v, want [x]", got["stop"])
			}
		})
	}
}

func TestNoOptionsKeepTheModelsOwn(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "6"}, ollamatest.Reply{Text: "6"})
	b := newBackend(t, s, ollama.Config{})
	for _, options := range []*llm.Sampling{nil, {}} {
		in, err := b.Prepare(t.Context(), llm.Request{Messages: conversation, Options: options})
		if err != nil {
			t.Fatal(err)
		}
		if r := stream(t.Context(), b, in); r.err != nil {
			t.Fatal(r.err)
		}
	}
	for i, r := range s.Requests() {
		if r.Options != nil {
			t.Errorf("request %d sent options %v: want none, so that the Modelfile's apply", i, r.Options)
		}
	}
}
