package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"sync"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/runner"
)

// evals holds the server's eval: one at a time, the latest kept, done or
// not, until the next starts. An eval's runs take places in the hub among
// the page's, so one is as many as a shared server should carry.
type evals struct {
	mu      sync.Mutex
	current *evalRun
}

// start makes e the current eval, unless one is running.
func (es *evals) start(e *evalRun) bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.current != nil && !es.current.finished() {
		return false
	}
	es.current = e
	return true
}

// latest is the current eval, or nil before the first.
func (es *evals) latest() *evalRun {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.current
}

// get is the eval of that id, or nil.
func (es *evals) get(id string) *evalRun {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.current == nil || es.current.id != id {
		return nil
	}
	return es.current
}

// stop cancels the current eval, if any (on shutdown).
func (es *evals) stop() {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.current != nil {
		es.current.cancel()
	}
}

// evalRun is one eval: what it runs, and its results as they come. The
// results are kept (for the page's table and a cell's cases): an eval
// is bounded by maxEvalCases, so they are too.
type evalRun struct {
	id     string
	suite  string
	cells  []runner.Cell
	tools  int // the suite's own tools, which the distractors are added to
	cancel context.CancelFunc

	mu        sync.Mutex
	results   []evalCase
	tallies   []runner.Tally // by cell index
	all       runner.Tally
	planned   int
	done      bool
	cancelled bool
	changed   chan struct{} // closed at each change, then replaced
}

// evalCase is one case run as the page reads it.
type evalCase struct {
	Suite        string         `json:"suite"`
	ID           string         `json:"id"`
	Repeat       int            `json:"repeat"`
	Cell         int            `json:"cell"`
	Pass         bool           `json:"pass"`
	Category     grade.Category `json:"category,omitempty"`
	Message      string         `json:"message,omitempty"`
	RunID        string         `json:"run_id,omitempty"`
	PromptTokens int            `json:"prompt_tokens"`
}

func newEvalRun(suiteName string, tools int, cells []runner.Cell, planned int, cancel context.CancelFunc) *evalRun {
	return &evalRun{id: newEvalID(), suite: suiteName, tools: tools, cells: cells, planned: planned, cancel: cancel,
		tallies: make([]runner.Tally, len(cells)), changed: make(chan struct{})}
}

func newEvalID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "e-" + hex.EncodeToString(b)
}

// add records a result; the runner calls it from one goroutine.
func (e *evalRun) add(r runner.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.results = append(e.results, evalCase{Suite: r.Suite, ID: r.Case, Repeat: r.Repeat, Cell: r.Cell.Index, Pass: r.Pass,
		Category: r.Category, Message: r.Message, RunID: r.RunID, PromptTokens: r.PromptTokens})
	e.tallies[r.Cell.Index].Add(r)
	e.all.Add(r)
	e.notify()
}

// finish marks the eval done; cancelled when it was stopped before all
// its cases ran.
func (e *evalRun) finish(cancelled bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done, e.cancelled = true, cancelled
	e.notify()
}

func (e *evalRun) notify() {
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *evalRun) finished() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.done
}

// after returns the results after the first n, whether the eval is done,
// and a channel closed at the next change.
func (e *evalRun) after(n int) ([]evalCase, bool, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.results[min(n, len(e.results)):], e.done, e.changed
}

// evalStatus is GET /api/evals/{id}: progress, and the results so far.
type evalStatus struct {
	ID        string       `json:"id"`
	Suite     string       `json:"suite"`
	Planned   int          `json:"planned"`
	Finished  int          `json:"finished"`
	Done      bool         `json:"done"`
	Cancelled bool         `json:"cancelled"`
	Demo      bool         `json:"demo"`
	Tools     int          `json:"tools"`
	Cells     []evalCell   `json:"cells"`
	Cases     []evalCase   `json:"cases"`
	Events    string       `json:"events"`
	Summary   evalTallyOut `json:"summary"`
}

// evalCell is one cell's tally.
type evalCell struct {
	Index       int         `json:"index"`
	Name        string      `json:"name"`
	Settings    runner.Cell `json:"settings"`
	Distractors int         `json:"distractors"`
	evalTallyOut
}

// evalTallyOut is a tally as the page reads it.
type evalTallyOut struct {
	Cases        int                    `json:"cases"`
	Passed       int                    `json:"passed"`
	Graded       int                    `json:"graded"`
	PassRate     float64                `json:"pass_rate"`
	Interval     [2]float64             `json:"interval"`
	PromptTokens float64                `json:"prompt_tokens"` // per graded run
	ToolsTokens  float64                `json:"tools_tokens"`  // per graded run, an estimate
	Categories   map[grade.Category]int `json:"categories,omitempty"`
}

func tallyOut(t runner.Tally) evalTallyOut {
	low, high := t.Interval()
	return evalTallyOut{Cases: t.Cases, Passed: t.Passed, Graded: t.Graded(), PassRate: t.PassRate(), Interval: [2]float64{low, high},
		// A copy: the tally goes on counting while the status is encoded.
		PromptTokens: t.Mean(t.PromptTokens), ToolsTokens: t.Mean(t.ToolsTokens), Categories: maps.Clone(t.Categories)}
}

// status is the eval as it stands.
func (e *evalRun) status(demo bool) evalStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := evalStatus{ID: e.id, Suite: e.suite, Planned: e.planned, Finished: len(e.results), Done: e.done, Cancelled: e.cancelled,
		Demo: demo, Tools: e.tools, Cases: append([]evalCase{}, e.results...), Events: "/api/evals/" + e.id + "/events"}
	for i, c := range e.cells {
		st.Cells = append(st.Cells, evalCell{Index: i, Name: c.String(), Settings: c, Distractors: c.Distractors, evalTallyOut: tallyOut(e.tallies[i])})
	}
	st.Summary = tallyOut(e.all)
	return st
}
