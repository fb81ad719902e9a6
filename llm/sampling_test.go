package llm_test

import (
	"slices"
	"testing"

	"github.com/toolscope/toolscope/llm"
)

func TestStopWithKeepsTheBackendsFirstAndOnce(t *testing.T) {
	base := []string{"<|im_end|>"}
	s := &llm.Sampling{Stop: []string{"x", "<|im_end|>", "y"}}
	if got, want := s.StopWith(base), []string{"<|im_end|>", "x", "y"}; !slices.Equal(got, want) {
		t.Errorf("StopWith = %q, want %q", got, want)
	}
	if base[0] != "<|im_end|>" || len(base) != 1 {
		t.Errorf("StopWith changed its argument: %q", base)
	}
	var none *llm.Sampling
	if got := none.StopWith(base); !slices.Equal(got, base) {
		t.Errorf("nil Sampling: StopWith = %q, want %q", got, base)
	}
}
