package runs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/tools"
)

// askingMail is a send_mail tool that asks the person to confirm first,
// as an MCP server's tool does, and says what came back.
func askingMail() tools.Tool {
	schema := json.RawMessage(`{"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}}, "required": ["to"]}`)
	return tools.Func("send_mail", "Send an email", schema, func(ctx context.Context, _ map[string]any) (string, error) {
		r, err := tools.AskerOf(ctx).Elicit(ctx, tools.Elicitation{Server: "mail", Mode: tools.ElicitForm, Message: "Send it?",
			Schema: json.RawMessage(`{"type": "object", "properties": {"sign": {"type": "string"}}, "required": ["sign"]}`)})
		if err != nil {
			return "", err
		}
		content, _ := json.Marshal(r.Content)
		return r.Action + " " + string(content), nil
	})
}

// startAsking starts a run whose tool asks, and returns it with the ask
// it waits on.
func startAsking(t *testing.T, h *Hub) (*Run, *agent.Ask) {
	t.Helper()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t, askingMail())})
	if err != nil {
		t.Fatal(err)
	}
	for e := range r.Events(context.Background(), 0) {
		if e.Type == agent.ElicitationRequested {
			if !e.Ask.Waiting || e.Ask.Until.IsZero() {
				t.Errorf("the ask does not say the run waits, and until when: %+v", e.Ask)
			}
			return r, e.Ask
		}
	}
	t.Fatal("the run ended without asking")
	return nil, nil
}

func toolResult(events []agent.Event) string {
	for _, e := range events {
		if e.Type == agent.ToolFinished {
			return e.Result + e.Error
		}
	}
	return ""
}

// The page answers the ask a run waits on by its id; a reply to another,
// or one that does not fit, is refused and the run keeps waiting.
func TestReplyAnswersTheAskARunWaitsOn(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	r, ask := startAsking(t, h)
	if err := r.Reply(ask.ID+1, agent.Reply{Action: tools.Decline}); !errors.Is(err, ErrNotAsking) {
		t.Errorf("a reply to another ask: %v, want ErrNotAsking", err)
	}
	var bad *BadReplyError
	if err := r.Reply(ask.ID, agent.Reply{Action: tools.Accept, Content: map[string]any{}}); !errors.As(err, &bad) || !strings.Contains(err.Error(), `field "sign" is required`) {
		t.Errorf("a form without its required field: %v", err)
	}
	if err := r.Reply(ask.ID, agent.Reply{Action: tools.Accept, Content: map[string]any{"sign": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Reply(ask.ID, agent.Reply{Action: tools.Decline}); !errors.Is(err, ErrNotAsking) {
		t.Errorf("a second reply: %v, want ErrNotAsking", err)
	}
	events := all(r)
	if got := toolResult(events); got != `accept {"sign":"Ada"}` {
		t.Errorf("the tool got %q", got)
	}
	if err := r.Reply(ask.ID, agent.Reply{Action: tools.Decline}); !errors.Is(err, ErrNotPaused) {
		t.Errorf("a reply once the run is over: %v, want an *OverError", err)
	}
}

// An ask nobody answers is cancelled when the pause timeout passes, and
// the run goes on.
func TestAskNobodyAnswersIsCancelled(t *testing.T) {
	h := NewHub(10, Limits{PauseTimeout: 20 * time.Millisecond})
	defer h.Close()
	r, _ := startAsking(t, h)
	events := all(r)
	if got := toolResult(events); got != "cancel null" {
		t.Errorf("the tool got %q", got)
	}
	for _, e := range events {
		if e.Type == agent.ElicitationAnswered && !strings.Contains(e.Reply.Note, "nobody answered within") {
			t.Errorf("note %q", e.Reply.Note)
		}
	}
	if res, _, _ := r.Outcome(); res.Reason != agent.Answered {
		t.Errorf("the run ended %s, want answered", res.Reason)
	}
}

// The page's answer counts against the pause timeout, which the ask
// announces as its until, not against the tool timeout: an answer that
// comes after the tool timeout still reaches the tool.
func TestAnswerAfterTheToolTimeout(t *testing.T) {
	h := NewHub(10)
	defer h.Close()
	registry, err := tools.NewRegistry(askingMail())
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry, ToolTimeout: 20 * time.Millisecond})
	r, err := h.Start(Spec{Message: request, Agent: a})
	if err != nil {
		t.Fatal(err)
	}
	var ask *agent.Ask
	for e := range r.Events(context.Background(), 0) {
		if e.Type == agent.ElicitationRequested {
			ask = e.Ask
			break
		}
	}
	if ask == nil {
		t.Fatal("the run ended without asking")
	}
	time.Sleep(10 * 20 * time.Millisecond) // the tool timeout passes, several times over
	if err := r.Reply(ask.ID, agent.Reply{Action: tools.Accept, Content: map[string]any{"sign": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	if got := toolResult(all(r)); got != `accept {"sign":"Ada"}` {
		t.Errorf("the tool got %q", got)
	}
}
