package store_test

import (
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// Lag is how far behind the live stream the last write was: the age of
// the oldest event it wrote, and 0 once nothing is left to write.
func TestLag(t *testing.T) {
	s := open(t, t.TempDir(), store.Options{FlushEvery: time.Hour}) // it writes when told to
	defer s.Close()
	if s.Lag() != 0 {
		t.Fatalf("Lag = %v before any write", s.Lag())
	}
	h := runs.NewHub(10)
	h.SetArchive(s)
	defer h.Close()
	g := toolstest.NewGate("send_mail")
	defer g.Release()
	registry, err := tools.NewRegistry(g.Tool())
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Start(runs.Spec{Message: request, Agent: agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})})
	if err != nil {
		t.Fatal(err)
	}
	<-g.Started
	// The run's start wakes the writer as well, so either that write or
	// this Sync's writes the run's first events, and the other finds
	// nothing left (Lag 0): which comes first is the scheduler's choice.
	s.Sync()
	if lag := s.Lag(); lag < 0 || lag > time.Since(r.Started) {
		t.Errorf("Lag = %v after writing the run's first events, want at most the run's age, %v", lag, time.Since(r.Started))
	}
	s.Sync() // nothing new: the run waits on its tool
	if lag := s.Lag(); lag != 0 {
		t.Errorf("Lag = %v with nothing left to write, want 0", lag)
	}
}
