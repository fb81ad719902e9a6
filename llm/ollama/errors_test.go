package ollama_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
)

// wantError checks that err is an *llm.Error from op whose problem
// mentions problem and whose fix is fix, with no front end's syntax in
// either, so that each front end can word it for its user.
func wantError(t *testing.T, err error, op, problem string, fix *llm.Fix) {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if e.Op != op || !strings.Contains(e.Problem, problem) {
		t.Errorf("error op %q, problem %q; want op %q and a problem saying %q", e.Op, e.Problem, op, problem)
	}
	switch {
	case fix == nil && e.Fix != nil:
		t.Errorf("fix = %+v, want none", *e.Fix)
	case fix != nil && (e.Fix == nil || *e.Fix != *fix):
		t.Errorf("fix = %+v, want %+v", e.Fix, *fix)
	}
	if text := e.Error(); strings.Contains(text, "--") || strings.Contains(text, " — ") {
		t.Errorf("error text %q holds a flag or a dash-separated hint, which are a front end's to write", text)
	}
}
