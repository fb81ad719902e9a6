package ollama

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/toolscope/toolscope/llm/ollamatest"
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
