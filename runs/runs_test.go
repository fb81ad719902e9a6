package runs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

func newAgent(t *testing.T, ts ...tools.Tool) *agent.Agent {
	t.Helper()
	if ts == nil {
		ts = tools.Stubs(0)
	}
	registry, err := tools.NewRegistry(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})
}

const request = "Send an email to john@example.com about tomorrow's standup"

// all follows a run from the start to its end.
func all(r *Run) []agent.Event { return slices.Collect(r.Events(context.Background(), 0)) }

func TestRunRecordsEveryEvent(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	events := all(r)
	for i, e := range events {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d: replay must be gapless", i, e.Seq)
		}
	}
	if last := events[len(events)-1]; last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Fatalf("last event = %+v", last)
	}
	snap := r.Snapshot()
	if !snap.Done || snap.Reason != agent.Answered || !strings.Contains(snap.Answer, "john@example.com") || len(snap.Events) != len(events) {
		t.Fatalf("snapshot = %+v", snap)
	}
}

// startHeld starts a run whose tool call blocks until g is released.
func startHeld(t *testing.T, h *Hub) (*Run, *toolstest.Gate) {
	t.Helper()
	g := toolstest.NewGate("send_mail")
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t, g.Tool())})
	if err != nil {
		t.Fatal(err)
	}
	<-g.Started
	return r, g
}

func TestCancel(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, _ := startHeld(t, h)
	r.Cancel()
	events := all(r)
	if last := events[len(events)-1]; last.Reason != agent.Cancelled {
		t.Fatalf("last event = %+v, want cancelled", last)
	}
}

func TestConversations(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	g := toolstest.NewGate("send_mail")
	a := newAgent(t, g.Tool())
	first, err := h.Start(Spec{Message: request, Agent: a})
	if err != nil {
		t.Fatal(err)
	}
	<-g.Started
	if _, err := h.Start(Spec{Message: "again", ConversationID: first.ConversationID, Agent: a}); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second run on a busy conversation: err = %v, want ErrBusy", err)
	}
	if _, err := h.Start(Spec{Message: "x", ConversationID: "c-nope", Agent: a}); !errors.Is(err, ErrUnknownConversation) {
		t.Fatalf("unknown conversation: err = %v", err)
	}
	g.Release()
	all(first)

	second, err := h.Start(Spec{Message: "Cancel the standup meeting on 2026-12-01", ConversationID: first.ConversationID, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	events := all(second)
	var input *agent.Event
	for i := range events {
		if events[i].Type == agent.RoundStarted {
			input = &events[i]
			break
		}
	}
	if input == nil || !strings.Contains(input.Input.Prompt, request) {
		t.Fatal("the follow-up's prompt lost the first request")
	}
}

func TestKeepsBoundedRuns(t *testing.T) {
	h := NewHub(2)
	defer h.Close()
	a := newAgent(t)
	var ids []string
	for range 4 {
		r, err := h.Start(Spec{Message: "hello", Agent: a})
		if err != nil {
			t.Fatal(err)
		}
		all(r)
		ids = append(ids, r.ID)
	}
	h.wg.Wait() // every run has been retired
	for i, id := range ids {
		_, err := h.Get(id)
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("run %d kept = %v; want only the newest 2", i, kept)
		}
	}
	if len(h.convs) != 2 {
		t.Errorf("%d conversations kept, want the 2 of the kept runs", len(h.convs))
	}
}

func TestCloseCancelsRuns(t *testing.T) {
	h := NewHub(10)
	r, _ := startHeld(t, h)
	h.Close()
	if snap := r.Snapshot(); !snap.Done || snap.Reason != agent.Cancelled {
		t.Fatalf("after Close the run is %+v, want cancelled", snap)
	}
	if _, err := h.Start(Spec{Message: "x", Agent: newAgent(t)}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: err = %v", err)
	}
}

func TestFollowUpRightAfterRunFinished(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	a := newAgent(t)
	r, err := h.Start(Spec{Message: "hello", Agent: a})
	if err != nil {
		t.Fatal(err)
	}
	// Stop at the run_finished event itself, not when the run is done.
	for e := range r.Events(t.Context(), 0) {
		if e.Type == agent.RunFinished {
			break
		}
	}
	if _, err := h.Start(Spec{Message: "again", ConversationID: r.ConversationID, Agent: a}); err != nil {
		t.Fatalf("a follow-up sent on run_finished was refused: %v", err)
	}
}

// view follows a run in a goroutine, as a remote viewer does, and sends
// what it sees on the returned channel, closing it when the iteration ends.
func view(ctx context.Context, r *Run, after int) <-chan agent.Event {
	out := make(chan agent.Event)
	go func() {
		defer close(out)
		for e := range r.Events(ctx, after) {
			out <- e
		}
	}()
	return out
}

// rest receives what a viewer sees until its iteration ends.
func rest(v <-chan agent.Event) []agent.Event {
	var out []agent.Event
	for e := range v {
		out = append(out, e)
	}
	return out
}

// waiting fails the test unless, now that synctest.Wait has returned, the
// viewer v waits on the run: it neither holds an event back nor has ended.
func waiting(t *testing.T, v <-chan agent.Event) {
	t.Helper()
	select {
	case e, open := <-v:
		if open {
			t.Fatalf("the viewer got %s (seq %d) while the run was held", e.Type, e.Seq)
		}
		t.Fatal("the iteration ended while the run was still going")
	default:
	}
}

// sameEvents fails the test unless got and want are the same events.
func sameEvents(t *testing.T, got, want []agent.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Seq != want[i].Seq || got[i].Type != want[i].Type {
			t.Fatalf("event %d: got %s (seq %d), want %s (seq %d)", i, got[i].Type, got[i].Seq, want[i].Type, want[i].Seq)
		}
	}
}

func wantViewers(t *testing.T, r *Run, want int, when string) {
	t.Helper()
	if n := r.Viewers(); n != want {
		t.Fatalf("Viewers() = %d %s, want %d", n, when, want)
	}
}

func TestEventsReplayThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, g := startHeld(t, h)
		synctest.Wait() // the run is held inside its tool call
		recorded := r.Snapshot().Events

		v := view(t.Context(), r, 0)
		var got []agent.Event
		for range recorded {
			got = append(got, <-v)
		}
		sameEvents(t, got, recorded)
		synctest.Wait()
		waiting(t, v)
		wantViewers(t, r, 1, "while a viewer waits for live events")

		g.Release()
		got = append(got, rest(v)...)
		for i, e := range got {
			if e.Seq != i+1 {
				t.Fatalf("event %d has seq %d: replay and live tail must join without a gap", i, e.Seq)
			}
		}
		if last := got[len(got)-1]; last.Type != agent.RunFinished || len(got) == len(recorded) {
			t.Fatalf("the live tail ended with %s after %d events (%d replayed)", last.Type, len(got), len(recorded))
		}
		wantViewers(t, r, 0, "after the run ended")
	})
}

func TestEventsResumeAfterSeq(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, g := startHeld(t, h)
		synctest.Wait()
		resumeAt := len(r.Snapshot().Events) / 2
		resumed := view(t.Context(), r, resumeAt)
		g.Release()
		tail := rest(resumed)

		sameEvents(t, tail, all(r)[resumeAt:])
		if tail[0].Seq != resumeAt+1 {
			t.Fatalf("resuming after %d started at %d", resumeAt, tail[0].Seq)
		}
	})
}

func TestEventsTwoViewers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, g := startHeld(t, h)
		saw := make(chan []agent.Event)
		for range 2 {
			go func() { saw <- slices.Collect(r.Events(t.Context(), 0)) }()
		}
		synctest.Wait()
		wantViewers(t, r, 2, "with two viewers waiting")
		g.Release()
		first, second := <-saw, <-saw
		sameEvents(t, first, second)
		if last := first[len(first)-1]; last.Type != agent.RunFinished {
			t.Fatalf("the viewers stopped at %s, want run_finished", last.Type)
		}
		wantViewers(t, r, 0, "after both viewers saw the end")
	})
}

func TestEventsBreakEndsViewing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, g := startHeld(t, h)
		for range r.Events(t.Context(), 0) {
			wantViewers(t, r, 1, "inside the loop")
			break
		}
		wantViewers(t, r, 0, "after a replaying viewer broke out")

		// A viewer of the live tail that leaves at its first live event.
		live := make(chan agent.Event)
		go func() {
			defer close(live)
			for e := range r.Events(t.Context(), len(r.Snapshot().Events)) {
				live <- e
				break
			}
		}()
		synctest.Wait()
		wantViewers(t, r, 1, "while the live viewer waits")
		g.Release()
		<-live
		<-live // closed once the loop has broken
		wantViewers(t, r, 0, "after a live viewer broke out")
		if events := all(r); events[len(events)-1].Reason != agent.Answered {
			t.Fatal("a viewer leaving stopped the run")
		}
	})
}

func TestEventsEndWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, g := startHeld(t, h)
		synctest.Wait()
		recorded := r.Snapshot().Events

		ctx, cancel := context.WithCancel(t.Context())
		saw := make(chan []agent.Event)
		go func() { saw <- slices.Collect(r.Events(ctx, 0)) }()
		synctest.Wait()
		wantViewers(t, r, 1, "while the viewer waits")
		cancel()
		sameEvents(t, <-saw, recorded)
		wantViewers(t, r, 0, "after the viewer's context ended")

		for e := range r.Events(ctx, 0) {
			t.Fatalf("an ended context still yielded %s", e.Type)
		}
		if r.Snapshot().Done {
			t.Fatal("a viewer's context ending stopped the run")
		}
		g.Release()
	})
}

func TestEventsOfFinishedRunEnd(t *testing.T) {
	// In a bubble, an iteration that waited for more events would be
	// reported as a deadlock instead of hanging the test.
	synctest.Test(t, func(t *testing.T) {
		h := NewHub(10)
		defer h.Close()
		r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
		if err != nil {
			t.Fatal(err)
		}
		whole := all(r)
		for _, after := range []int{-1, 0, 1, len(whole) - 1, len(whole), len(whole) + 5} {
			got := slices.Collect(r.Events(t.Context(), after))
			sameEvents(t, got, whole[min(max(after, 0), len(whole)):])
		}
		wantViewers(t, r, 0, "after every iteration ended")
	})
}
