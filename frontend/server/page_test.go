package server

import (
	"errors"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
)

func TestFallbackWordsTheNextStep(t *testing.T) {
	const restart = ", then restart toolscope (./start.sh) to use it."
	tests := []struct {
		name          string
		cause         error
		problem, next string
	}{
		{"Ollama not running",
			&llm.Error{Problem: "Ollama is not reachable at http://127.0.0.1:11434 (connection refused)", Fix: &llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"}},
			"Ollama is not reachable at http://127.0.0.1:11434 (connection refused)",
			"Start Ollama with 'ollama serve' and pull the model with 'ollama pull qwen3:4b'" + restart},
		{"model not pulled",
			&llm.Error{Problem: `model "qwen3:4b" is not pulled`, Fix: &llm.Fix{Do: "run 'ollama pull qwen3:4b'", Setting: llm.SettingModel}},
			`model "qwen3:4b" is not pulled`, "Run 'ollama pull qwen3:4b'" + restart},
		{"no fix known", &llm.Error{Problem: "Ollama answered 500"}, "Ollama answered 500",
			"Restart toolscope (./start.sh) once Ollama answers, to use it."},
		{"not an llm.Error", errors.New("boom"), "boom", "Restart toolscope (./start.sh) once Ollama answers, to use it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fallbackOf(&engine.Fallback{Model: "qwen3:4b", Cause: tt.cause})
			if got.Problem != tt.problem || got.Next != tt.next {
				t.Errorf("fallbackOf = %+v, want problem %q, next %q", *got, tt.problem, tt.next)
			}
		})
	}
	if fallbackOf(nil) != nil {
		t.Error("fallbackOf(nil) is not nil")
	}
}
