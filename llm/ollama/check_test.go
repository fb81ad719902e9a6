package ollama_test

import (
	"context"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func TestCheck(t *testing.T) {
	server := ollamatest.New(t)
	server.AddModel("llama3.2:latest", ollamatest.Model{Template: "{{ .Prompt }}"})
	closed := nettest.ClosedAddress(t)
	for _, c := range []struct {
		name, host, model, problem string
		fix                        *llm.Fix
	}{
		{"ready", server.Host(), "qwen3:4b", "", nil},
		{"untagged name means latest", server.Host(), "llama3.2", "", nil},
		{"not pulled", server.Host(), "qwen9:1b", `model "qwen9:1b" is not pulled`,
			&llm.Fix{Do: "run 'ollama pull qwen9:1b'", Setting: llm.SettingModel}},
		{"down", closed, "qwen3:4b", "Ollama is not reachable at http://" + closed,
			&llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := ollama.New(ollama.Config{Host: c.host, Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			version, err := b.Check(context.Background())
			if c.fix == nil {
				if err != nil || version != ollamatest.Version {
					t.Fatalf("Check() = %q, %v; want the version and no error", version, err)
				}
				return
			}
			wantError(t, err, "check", c.problem, c.fix)
		})
	}
}

func TestInputIsNeverCut(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		server := ollamatest.New(t)
		server.Reply(ollamatest.Reply{Text: "ok"}, ollamatest.Reply{Status: 500, Error: "the input length exceeds the context length"})
		b, err := ollama.New(ollama.Config{Host: server.Host(), Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		in, err := b.Prepare(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Stream(context.Background(), in, func(llm.Chunk) error { return nil }); err != nil {
			t.Fatal(err)
		}
		req := server.Requests()[0]
		if req.Truncate == nil || *req.Truncate || req.Shift == nil || *req.Shift {
			t.Errorf("%s: truncate %v, shift %v; want both false, so the model reads exactly the input shown", mode, req.Truncate, req.Shift)
		}
		_, err = b.Stream(context.Background(), in, func(llm.Chunk) error { return nil })
		wantError(t, err, "stream", "the conversation no longer fits the model's context",
			&llm.Fix{Do: "start a new conversation, or give Ollama a larger context (OLLAMA_CONTEXT_LENGTH=16384 ollama serve)"})
	}
}
