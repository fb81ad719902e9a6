package runs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/transcript"
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

// Paused runs keep their places until their pauses time out; the refusal
// of another run says how many of them wait so, and how long at most.
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
	if !strings.Contains(err.Error(), "2 of them are paused in step mode") || !strings.Contains(err.Error(), "30m at most") {
		t.Errorf("err = %q, want it to say how many runs are paused, and how long they wait at most", err)
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

// A pause nobody continues ends when its time is up: the run stops,
// saying why, and frees its place, which six forgotten pauses would
// otherwise hold forever. Each pause says until when it waits.
func TestAPauseTimesOut(t *testing.T) {
	h := NewHub(10, Limits{MaxLive: 1, PauseTimeout: 20 * time.Millisecond})
	defer h.Close()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t), Step: true})
	if err != nil {
		t.Fatal(err)
	}
	events := all(r)
	paused := events[slices.IndexFunc(events, func(e agent.Event) bool { return e.Type == agent.Paused })]
	if paused.Pause.Until.Before(r.Started) {
		t.Errorf("the paused event says it waits until %v, before the run started at %v", paused.Pause.Until, r.Started)
	}
	stop, end := events[len(events)-2], events[len(events)-1]
	if stop.Type != agent.Error || !strings.Contains(stop.Error, "nobody continued it within 20ms") || stop.Round != paused.Round {
		t.Errorf("the event before the end = %+v; want an error saying the pause timed out", stop)
	}
	if end.Type != agent.RunFinished || end.Reason != agent.Cancelled {
		t.Errorf("the run ended with %+v; want it stopped", end)
	}
	res, _, _ := r.Outcome()
	var timeout *PauseTimeoutError
	if !errors.As(res.Err, &timeout) || timeout.Timeout != 20*time.Millisecond || timeout.At != paused.Pause.At {
		t.Errorf("the run's error = %#v; want a *PauseTimeoutError", res.Err)
	}
	h.wg.Wait()
	if _, err := h.Start(Spec{Message: request, Agent: newAgent(t)}); err != nil {
		t.Fatalf("once the pause timed out: %v", err)
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

// A run stopped at a pause that timed out leaves a conversation that a
// follow-up from its events (transcript.Conversation, as after_run and the
// history rebuild it) must read as the run left it.
func TestAPauseTimedOutAtACallLeavesItsConversationInItsEvents(t *testing.T) {
	h := NewHub(10, Limits{MaxLive: 1, PauseTimeout: time.Second})
	defer h.Close()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t), Step: true})
	if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	for e := range r.Events(context.Background(), 0) {
		events = append(events, e)
		if e.Type == agent.Paused && e.Pause.At != agent.AtCall {
			if err := r.Continue(agent.Edit{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var timeout *PauseTimeoutError
	if res, _, _ := r.Outcome(); !errors.As(res.Err, &timeout) || timeout.At != agent.AtCall {
		t.Fatalf("the run's error = %#v; want its pause before the call to time out", res.Err)
	}
	if stop := events[len(events)-2]; stop.Type != agent.Error || !strings.Contains(stop.Error, "nobody continued it") {
		t.Errorf("the event before the end = %+v; want the error saying why the run was stopped", stop)
	}
	got, err := transcript.Conversation(events)
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	kept := h.convs[r.ConversationID].Conversation.Messages
	h.mu.Unlock()
	if !slices.EqualFunc(got.Messages, kept, func(a, b llm.Message) bool { return a.Role == b.Role && a.Content == b.Content }) {
		t.Errorf("rebuilt from the events:\n%+v\nthe run left:\n%+v", got.Messages, kept)
	}
}

// A Continue that comes before the run has begun to wait, as soon as a
// viewer sees the Paused event, reaches the run all the same: it was told
// its Edit was taken.
func TestContinueBeforeTheRunWaits(t *testing.T) {
	r := &Run{}
	at := agent.Pause{At: agent.AtCall, Round: 1}
	r.mu.Lock()
	r.pause.record(agent.Event{Type: agent.Paused, Pause: &at}, time.Minute)
	r.mu.Unlock()
	if err := r.Continue(agent.Edit{Skip: true}); err != nil {
		t.Fatal(err)
	}
	if got := r.Step(t.Context(), at); !got.Skip {
		t.Errorf("Step after Continue = %+v; want the Edit Continue took (skip)", got)
	}
	if err := r.Continue(agent.Edit{}); !errors.Is(err, ErrNotPaused) {
		t.Errorf("a Continue after the pause ended = %v; want ErrNotPaused", err)
	}
}
