package ollama

import (
	"slices"
	"testing"
)

func TestStopParameters(t *testing.T) {
	// As Ollama 0.17's /api/show writes qwen3's parameters.
	params := "repeat_penalty                 1\n" +
		"stop                           \"<|im_start|>\"\n" +
		"stop                           \"<|im_end|>\"\n" +
		"temperature                    0.6\n" +
		"stop                           \"say \\\"end\\\"\""
	want := []string{"<|im_start|>", "<|im_end|>", `say "end"`}
	if got := stopParameters(params); !slices.Equal(got, want) {
		t.Errorf("stopParameters = %q, want %q", got, want)
	}
	if got := stopParameters(""); got != nil {
		t.Errorf("no parameters gave %q", got)
	}
}
