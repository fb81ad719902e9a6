package server

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/runner"
)

// An eval's status is read (and encoded) while its runner goes on adding
// results: what the status holds must be its own, or -race reports the
// tallies' maps written while they are encoded.
func TestEvalStatusIsACopy(t *testing.T) {
	e := newEvalRun("stubs", 3, []runner.Cell{{}}, 200, func() {})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			e.add(runner.Result{Case: "c", Repeat: i, Result: grade.Result{Category: []grade.Category{grade.NoCall, grade.WrongTool}[i%2]}})
		}
	})
	for range 50 {
		if _, err := json.Marshal(e.status(true)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if st := e.status(true); st.Summary.Categories[grade.NoCall] != 100 || st.Finished != 200 {
		t.Errorf("after 200 results: %d finished, categories %v", st.Finished, st.Summary.Categories)
	}
}
