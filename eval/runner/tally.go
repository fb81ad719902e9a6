package runner

import (
	"math"
	"time"

	"github.com/toolscope/toolscope/eval/grade"
)

// Summary is what an eval came to: the whole and each cell.
type Summary struct {
	Tally
	// Cells are the cells' tallies, by Cell.Index.
	Cells []CellTally
	// Planned is how many case runs the eval holds; NotRun those that
	// never started, when it was stopped.
	Planned, NotRun int
}

// CellTally is one cell's tally.
type CellTally struct {
	Cell Cell
	Tally
}

// Tally counts results as they come. Its size does not grow with their
// number: latencies go into a histogram of fixed size.
type Tally struct {
	// Cases are the case runs that ended; Passed of them passed, and
	// NotGraded ended without a verdict on the model (a backend error, a
	// timeout, cancelled).
	Cases, Passed, NotGraded int
	// Categories counts the failures by category.
	Categories map[grade.Category]int
	// PromptTokens, OutputTokens and ToolsTokens are summed over the
	// graded runs; ToolsTokens is an estimate (see Result.ToolsTokens).
	PromptTokens, OutputTokens, ToolsTokens int64

	latency histogram
}

// Add counts one result.
func (t *Tally) Add(r Result) {
	t.Cases++
	if r.Pass {
		t.Passed++
	} else {
		if t.Categories == nil {
			t.Categories = map[grade.Category]int{}
		}
		t.Categories[r.Category]++
	}
	if !r.Graded() {
		t.NotGraded++
		return
	}
	t.PromptTokens += int64(r.PromptTokens)
	t.OutputTokens += int64(r.OutputTokens)
	t.ToolsTokens += int64(r.ToolsTokens)
	t.latency.add(r.Latency)
}

// Graded is the number of runs with a verdict.
func (t Tally) Graded() int { return t.Cases - t.NotGraded }

// PassRate is the share of graded runs that passed; 0 with none.
func (t Tally) PassRate() float64 {
	if t.Graded() == 0 {
		return 0
	}
	return float64(t.Passed) / float64(t.Graded())
}

// Interval is the pass rate's 95% Wilson interval.
func (t Tally) Interval() (low, high float64) { return grade.Wilson(t.Passed, t.Graded()) }

// MedianLatency is the graded runs' median wall time, within the
// histogram's 2%.
func (t Tally) MedianLatency() time.Duration { return t.latency.median() }

// Mean returns a sum over the graded runs per graded run.
func (t Tally) Mean(sum int64) float64 {
	if t.Graded() == 0 {
		return 0
	}
	return float64(sum) / float64(t.Graded())
}

// histogram counts durations in buckets 2% wide, from a microsecond to
// about an hour and a half: a median without keeping every value.
type histogram struct {
	counts [histogramBuckets]int32
	n      int
}

const (
	bucketRatio      = 1.02
	histogramBuckets = 1150 // 1.02^1150 µs ≈ 1.5 h
)

func (h *histogram) add(d time.Duration) {
	us := max(float64(d)/float64(time.Microsecond), 1)
	i := min(int(math.Log(us)/math.Log(bucketRatio)), histogramBuckets-1)
	h.counts[i]++
	h.n++
}

// median is the middle bucket's middle; 0 with no values.
func (h *histogram) median() time.Duration {
	if h.n == 0 {
		return 0
	}
	seen := 0
	for i, c := range h.counts {
		seen += int(c)
		if seen*2 >= h.n {
			us := math.Pow(bucketRatio, float64(i)+0.5)
			return time.Duration(us * float64(time.Microsecond))
		}
	}
	return 0
}
