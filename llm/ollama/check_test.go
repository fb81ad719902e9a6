package ollama

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func TestCheck(t *testing.T) {
	server := ollamatest.New(t)
	server.AddModel("llama3.2:latest", ollamatest.Model{Template: "{{ .Prompt }}"})
	closed := nettest.ClosedAddress(t)
	for _, c := range []struct {
		name, host, model, want string
	}{
		{"ready", server.Host(), "qwen3:4b", ""},
		{"untagged name means latest", server.Host(), "llama3.2", ""},
		{"not pulled", server.Host(), "qwen9:1b", "model \"qwen9:1b\" is not pulled — run 'ollama pull qwen9:1b'"},
		{"down", closed, "qwen3:4b", "start it with 'ollama serve', or run with --backend demo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := New(Config{Host: c.host, Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			version, err := b.Check(context.Background())
			switch {
			case c.want == "" && (err != nil || version != ollamatest.Version):
				t.Fatalf("Check() = %q, %v; want the version and no error", version, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("Check() error = %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestInputIsNeverCut(t *testing.T) {
	for _, mode := range []string{llm.ModeRaw, llm.ModeChat} {
		server := ollamatest.New(t)
		server.Reply(ollamatest.Reply{Text: "ok"}, ollamatest.Reply{Status: 500, Error: "the input length exceeds the context length"})
		b, err := New(Config{Host: server.Host(), Mode: mode})
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
		if err == nil || !strings.Contains(err.Error(), "start a new conversation, or give Ollama a larger one") {
			t.Errorf("%s: an input too long for the context: error %v, want the way out", mode, err)
		}
	}
}
