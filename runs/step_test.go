package runs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
)

// startPaused starts a run in step mode and returns it once it waits at
// its first pause.
func startPaused(t *testing.T, h *Hub) *Run {
	t.Helper()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t), Step: true})
	if err != nil {
		t.Fatal(err)
	}
	for e := range r.Events(context.Background(), 0) {
		if e.Type == agent.Paused {
			return r
		}
	}
	t.Fatal("the run ended without pausing")
	return nil
}

// Paused runs keep their places however long they wait; the refusal of
// another run says how many of them wait so.
func TestPausedRunsHoldTheirPlaces(t *testing.T) {
	h := NewHub(10, Limits{MaxLive: 3})
	defer h.Close()
	first, second := startPaused(t, h), startPaused(t, h)
	_, g := startHeld(t, h)
	_, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	g.Release()
	var tm *TooManyRunsError
	if !errors.Is(err, ErrTooManyRuns) || !errors.As(err, &tm) || tm.Live != 3 || tm.Paused != 2 {
		t.Fatalf("a fourth live run: err = %#v, want ErrTooManyRuns with 3 live, 2 of them paused", err)
	}
	if !strings.Contains(err.Error(), "2 of them are paused in step mode") {
		t.Errorf("err = %q, want it to say how many runs are paused", err)
	}
	first.Cancel()
	second.Cancel()
	all(first)
	all(second)
	h.wg.Wait()
	if _, err := h.Start(Spec{Message: request, Agent: newAgent(t)}); err != nil {
		t.Fatalf("once the paused runs were cancelled: %v", err)
	}
}

func TestTooManyRunsNoneOfThemPaused(t *testing.T) {
	err := &TooManyRunsError{Live: 2}
	if err.Error() != ErrTooManyRuns.Error() {
		t.Errorf("err = %q, want %q", err, ErrTooManyRuns)
	}
}

// Continue tells a run that is over from one between two pauses.
func TestContinueARunThatIsOver(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	paused := startPaused(t, h)
	paused.Cancel()
	all(paused)
	answered, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	all(answered)
	for _, c := range []struct {
		r    *Run
		want agent.Reason
		says string
	}{
		{paused, agent.Cancelled, "the run is over: it was cancelled"},
		{answered, agent.Answered, "the run is over: it answered"},
	} {
		err := c.r.Continue(agent.Edit{})
		var over *OverError
		if !errors.As(err, &over) || over.Reason != c.want || !errors.Is(err, ErrNotPaused) || err.Error() != c.says {
			t.Errorf("Continue of a run that %s = %#v (%v), want an *OverError saying %q", c.want, err, err, c.says)
		}
	}
}
