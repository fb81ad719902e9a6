package ollama_test

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
)

func TestHostParsing(t *testing.T) {
	tests := []struct {
		host, env string
		want      string // BaseURL, or the start of New's error when wantErr
		wantErr   bool
	}{
		{host: "", want: "http://127.0.0.1:11434"},
		{host: "", env: "10.0.0.5:8080", want: "http://10.0.0.5:8080"},
		{host: "", env: ` "10.0.0.5" `, want: "http://10.0.0.5:11434"},
		{host: "gpu-box:9000", env: "ignored:1", want: "http://gpu-box:9000"},
		{host: "127.0.0.1:11434", want: "http://127.0.0.1:11434"},
		{host: "gpu-box", want: "http://gpu-box:11434"},
		{host: "1.2.3.4", want: "http://1.2.3.4:11434"},
		{host: ":1234", want: "http://:1234"},
		{host: "[::1]", want: "http://[::1]:11434"},
		{host: "::1", want: "http://[::1]:11434"},
		{host: "[::1]:1337", want: "http://[::1]:1337"},
		{host: "http://gpu-box", want: "http://gpu-box:80"},
		{host: "http://gpu-box:4321", want: "http://gpu-box:4321"},
		{host: "https://gpu-box", want: "https://gpu-box:443"},
		{host: "https://example.com/ollama", want: "https://example.com:443/ollama"},
		{host: "'1.2.3.4'", want: "http://1.2.3.4:11434"},
		{host: "ollama.com", want: "https://ollama.com:443"},
		{host: ":66000", want: `Ollama host ":66000": port "66000" is not a number from 0 to 65535`, wantErr: true},
		{host: "gpu-box:http", want: `Ollama host "gpu-box:http": port "http"`, wantErr: true},
		{host: "ftp://gpu-box", want: `Ollama host "ftp://gpu-box": scheme must be http or https`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.host+"|"+tt.env, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tt.env)
			b, err := ollama.New(ollama.Config{Host: tt.host})
			switch {
			case tt.wantErr:
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Errorf("New error = %v, want %q", err, tt.want)
				}
			case err != nil:
				t.Errorf("New: %v", err)
			case b.BaseURL() != tt.want:
				t.Errorf("BaseURL() = %q, want %q", b.BaseURL(), tt.want)
			}
		})
	}
}

func TestModeAndModel(t *testing.T) {
	tests := []struct {
		mode    llm.Mode
		model   string
		want    llm.Info
		wantErr string
	}{
		{"", "", llm.Info{Backend: "ollama", Model: "qwen3:4b", Mode: llm.ModeRaw}, ""},
		{llm.ModeChat, "llama3.2", llm.Info{Backend: "ollama", Model: "llama3.2", Mode: llm.ModeChat}, ""},
		{"native", "", llm.Info{}, `unknown Ollama mode "native": use "raw" or "chat"`},
	}
	for _, tt := range tests {
		b, err := ollama.New(ollama.Config{Host: "127.0.0.1:1", Mode: tt.mode, Model: tt.model})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("New(mode %q) error = %v, want %q", tt.mode, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Info(); got != tt.want {
			t.Errorf("Info() = %+v, want %+v", got, tt.want)
		}
	}
}
