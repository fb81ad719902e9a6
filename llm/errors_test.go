package llm_test

import (
	"testing"

	"github.com/toolscope/toolscope/llm"
)

func TestFixReadsAsWords(t *testing.T) {
	for _, tt := range []struct {
		fix  llm.Fix
		want string
	}{
		{llm.Fix{Do: "run 'ollama pull m'"}, "run 'ollama pull m'"},
		{llm.Fix{Setting: llm.SettingMode, Value: "chat"}, "set mode to chat"},
		{llm.Fix{Do: "run 'ollama pull m'", Setting: llm.SettingModel}, "run 'ollama pull m', or choose another model"},
		{llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"},
			"start Ollama with 'ollama serve', or set backend to demo"},
	} {
		if got := tt.fix.String(); got != tt.want {
			t.Errorf("%+v reads %q, want %q", tt.fix, got, tt.want)
		}
	}
	e := &llm.Error{Problem: `model "m" cannot think`, Fix: &llm.Fix{Setting: llm.SettingThink, Value: "false"}}
	if got, want := e.Error(), `model "m" cannot think: set think to false`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
