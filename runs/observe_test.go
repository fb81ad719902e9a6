package runs

import (
	"context"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/agent"
)

// recorder is an Observer that keeps what it was shown.
type recorder struct {
	name   string
	runs   []*Run
	events []agent.Type
	ctxs   []context.Context
}

type observerKey struct{}

func (o *recorder) Observe(ctx context.Context, r *Run) (context.Context, func(agent.Event)) {
	o.runs, o.ctxs = append(o.runs, r), append(o.ctxs, ctx)
	return context.WithValue(ctx, observerKey{}, o.name), func(e agent.Event) { o.events = append(o.events, e.Type) }
}

// Each Observer is shown the run with the trace context its request
// carried, and every event the run records, in order; each runs under
// the context the one before it returned.
func TestObserversSeeEveryEvent(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	first, second := &recorder{name: "first"}, &recorder{name: "second"}
	h.Observe(first)
	h.Observe(second)
	trace := TraceContext{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Baggage: "k=v"}
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t), Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	var recorded []agent.Type
	for _, e := range all(r) {
		recorded = append(recorded, e.Type)
	}
	for _, o := range []*recorder{first, second} {
		if len(o.runs) != 1 || o.runs[0] != r || o.runs[0].Trace != trace {
			t.Fatalf("%s was shown %v, want the run with its trace context", o.name, o.runs)
		}
		if !slices.Equal(o.events, recorded) {
			t.Errorf("%s saw %v, want every event recorded: %v", o.name, o.events, recorded)
		}
	}
	if got := second.ctxs[0].Value(observerKey{}); got != "first" {
		t.Errorf("the second observer's context holds %v, not the first's", got)
	}
}

// Viewers counts the iterations following the Hub's runs.
func TestHubViewers(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, g := startHeld(t, h)
	defer g.Release()
	ctx, stop := context.WithCancel(t.Context())
	following, done := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(done)
		for range r.Events(ctx, 0) {
			select {
			case following <- struct{}{}:
			default:
			}
		}
	}()
	<-following
	if n := h.Viewers(); n != 1 {
		t.Errorf("Viewers = %d with one following, want 1", n)
	}
	stop()
	<-done
	if n := h.Viewers(); n != 0 {
		t.Errorf("Viewers = %d once the viewer left, want 0", n)
	}
}
