package server

import (
	"errors"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
)

func TestFallbackWordsTheNextStep(t *testing.T) {
	const restart = ", then restart toolscope (./start.sh) to use it."
	notPulled := &llm.Error{Problem: `model "qwen3:4b" is not pulled`, Fix: &llm.Fix{Do: "run 'ollama pull qwen3:4b'", Setting: llm.SettingModel}, Err: ollama.ErrNotPulled}
	tests := []struct {
		name           string
		cause          error
		operator       bool
		problem, next  string
		pull, pullSize string
	}{
		{"Ollama not running",
			&llm.Error{Problem: "Ollama is not reachable at http://127.0.0.1:11434 (connection refused)", Fix: &llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"}},
			true, "Ollama is not reachable at http://127.0.0.1:11434 (connection refused)",
			"Start Ollama with 'ollama serve' and pull the model with 'ollama pull qwen3:4b'" + restart, "", ""},
		{"model not pulled, to a viewer", notPulled, false,
			`model "qwen3:4b" is not pulled`, "Run 'ollama pull qwen3:4b'" + restart, "", ""},
		{"model not pulled, to the operator", notPulled, true, `model "qwen3:4b" is not pulled`,
			"Pull it here, and toolscope switches to it once Ollama has it. Or run 'ollama pull qwen3:4b', then restart toolscope (./start.sh).",
			"qwen3:4b", "2.5 GB"},
		{"no fix known", &llm.Error{Problem: "Ollama answered 500"}, true, "Ollama answered 500",
			"Restart toolscope (./start.sh) once Ollama answers, to use it.", "", ""},
		{"not an llm.Error", errors.New("boom"), true, "boom", "Restart toolscope (./start.sh) once Ollama answers, to use it.", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fallbackOf(&engine.Fallback{Model: "qwen3:4b", Cause: tt.cause}, tt.operator)
			if got.Problem != tt.problem || got.Next != tt.next || got.Pull != tt.pull || got.PullSize != tt.pullSize {
				t.Errorf("fallbackOf = %+v, want problem %q, next %q, pull %q (%q)", *got, tt.problem, tt.next, tt.pull, tt.pullSize)
			}
		})
	}
	if fallbackOf(nil, true) != nil {
		t.Error("fallbackOf(nil) is not nil")
	}
}
