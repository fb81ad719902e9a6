package runs

import (
	"errors"
	"strings"
	"testing"

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

// follow reads a run from seq until it finishes, as an SSE viewer does.
func follow(r *Run, seq int) []agent.Event {
	var out []agent.Event
	for {
		events, changed, done := r.Since(seq)
		out = append(out, events...)
		if len(events) > 0 {
			seq = events[len(events)-1].Seq
		}
		if done && len(events) == 0 {
			return out
		}
		if len(events) == 0 {
			<-changed
		}
	}
}

func TestRunRecordsEveryEvent(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	events := follow(r, 0)
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

func TestResumeAndSecondViewer(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, g := startHeld(t, h)
	early, _, _ := r.Since(0)
	resumeAt := early[len(early)/2].Seq

	whole := make(chan []agent.Event)
	resumed := make(chan []agent.Event)
	go func() { whole <- follow(r, 0) }()
	go func() { resumed <- follow(r, resumeAt) }()
	g.Release()

	all, tail := <-whole, <-resumed
	if len(tail) != len(all)-resumeAt || tail[0].Seq != resumeAt+1 {
		t.Fatalf("resuming after %d gave %d events starting at %d; the full stream has %d", resumeAt, len(tail), tail[0].Seq, len(all))
	}
	for i := range tail {
		if tail[i].Seq != all[resumeAt+i].Seq || tail[i].Type != all[resumeAt+i].Type {
			t.Fatalf("viewers disagree at %d", i)
		}
	}
}

func TestCancel(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, _ := startHeld(t, h)
	r.Cancel()
	events := follow(r, 0)
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
	follow(first, 0)

	second, err := h.Start(Spec{Message: "Cancel the standup meeting on 2026-12-01", ConversationID: first.ConversationID, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	events := follow(second, 0)
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
		follow(r, 0)
		ids = append(ids, r.ID)
	}
	h.wg.Wait() // every run has been retired
	for i, id := range ids {
		_, kept := h.Get(id)
		if kept != (i >= 2) {
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
	// Wait for the run_finished event itself, not for the run to be done.
	for seq := 0; ; {
		events, changed, _ := r.Since(seq)
		if n := len(events); n > 0 && events[n-1].Type == agent.RunFinished {
			break
		} else if n > 0 {
			seq = events[n-1].Seq
			continue
		}
		<-changed
	}
	if _, err := h.Start(Spec{Message: "again", ConversationID: r.ConversationID, Agent: a}); err != nil {
		t.Fatalf("a follow-up sent on run_finished was refused: %v", err)
	}
}
