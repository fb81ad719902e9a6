package runner_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/runs"
)

// askSuite is one case the scripted model passes in one round.
const askSuite = `
tools: {stubs: [send_mail]}
cases:
  - id: ask-first
    request: Email John about the standup
    expect: {no_call: true, answer_contains: [address]}
`

// heapAfter runs n cases of the demo model and returns the heap in use
// once they are done, with the hub still open, as a long eval holds it.
func heapAfter(t *testing.T, n int) uint64 {
	base := engine.Defaults()
	base.Backend, base.ToolDelay, base.DemoDelay = engine.BackendDemo, 0, 0
	hub := runs.NewHub(1, runs.Limits{MaxLive: 16})
	defer hub.Close()
	s := parse(t, askSuite)
	s.Cases[0].Repeat = n
	passed := 0
	sum, err := runner.Run(context.Background(), runner.Config{Suites: []*suite.Suite{s}, Base: base, Hub: hub, Parallel: 8,
		Report: func(r runner.Result) {
			if r.Pass {
				passed++
			}
		}})
	if err != nil || sum.Cases != n || passed != n {
		t.Fatalf("%d cases, %d passed, error %v: want %d passes", sum.Cases, passed, err, n)
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestMemoryDoesNotGrowWithCases runs 1,000 cases, then 10,000: the heap
// they leave must not grow with the 9,000 more, since nothing of a case
// is kept once it is reported and tallied. 2 MB of slack is 230 bytes a
// case: a result, or a transcript, kept per case would exceed it.
func TestMemoryDoesNotGrowWithCases(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("runs 11,000 cases: test.sh runs it without -race or -short")
	}
	small := heapAfter(t, 1000)
	large := heapAfter(t, 10000)
	t.Logf("heap in use after 1,000 cases: %.1f MB; after 10,000: %.1f MB", float64(small)/1e6, float64(large)/1e6)
	if large > small+2<<20 {
		t.Errorf("heap grew from %d to %d bytes over 9,000 more cases", small, large)
	}
}

// BenchmarkCase measures the harness's own cost per case: the scripted
// server answers at once, 32 cases run at once, so the time per case is
// toolscope's (the hub, the loop, parsing, folding, grading) plus the
// in-process server's, on the same cores.
var benchParallel = 32

func BenchmarkCase(b *testing.B) {
	server := openaitest.New(b)
	for range b.N {
		server.Reply(openaitest.Reply{Text: "What is John's email address?"})
	}
	hub := runs.NewHub(1, runs.Limits{MaxLive: 32})
	defer hub.Close()
	s := parse(b, askSuite)
	s.Cases[0].Repeat = b.N
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	sum, err := runner.Run(context.Background(), runner.Config{Suites: []*suite.Suite{s}, Base: openAIBase(server), Hub: hub, Parallel: 32})
	b.ReportMetric(float64(cpuTime()-before)/float64(time.Millisecond)/float64(b.N), "cpu-ms/case")
	b.StopTimer()
	if err != nil || sum.Passed != b.N {
		b.Fatalf("%d of %d passed: %v", sum.Passed, b.N, err)
	}
}
