package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

// watched is a scripted backend that keeps every input it was sent.
type watched struct {
	scripted
	sent []llm.Input
}

func (w *watched) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	if err := ctx.Err(); err != nil {
		return llm.Stats{}, err
	}
	w.sent = append(w.sent, in)
	return w.scripted.Stream(ctx, in, fn)
}

// stepperFunc answers each pause with a function of it.
type stepperFunc func(ctx context.Context, p agent.Pause) agent.Edit

func (f stepperFunc) Step(ctx context.Context, p agent.Pause) agent.Edit { return f(ctx, p) }

const mailCall = `<tool_call>{"name": "send_mail", "arguments": {"to": "a@example.com", "subject": "Hi", "body": "Hello"}}</tool_call>`

// stepRun runs one request in step mode, answering pauses with step, and
// returns the backend, the conversation and the events.
func stepRun(t *testing.T, ctx context.Context, replies [][]string, step stepperFunc) (*watched, *agent.Conversation, agent.Result, []agent.Event) {
	t.Helper()
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	b := &watched{scripted: scripted{replies: replies}}
	a := agent.New(agent.Config{Backend: b, Tools: registry, Now: func() time.Time { return now }}).Stepping(step)
	conv := &agent.Conversation{}
	var events []agent.Event
	res := a.Run(ctx, conv, "mail a", func(e agent.Event) { events = append(events, e) })
	return b, conv, res, events
}

func TestStepEditedInputIsSent(t *testing.T) {
	var points []agent.Point
	b, _, res, events := stepRun(t, context.Background(), [][]string{{"Done."}}, func(_ context.Context, p agent.Pause) agent.Edit {
		points = append(points, p.At)
		if p.At != agent.AtInput {
			return agent.Edit{}
		}
		in := *p.Input
		in.Prompt = "EDITED " + in.Prompt
		return agent.Edit{Input: &in}
	})
	if res.Reason != agent.Answered || len(points) != 1 || points[0] != agent.AtInput {
		t.Fatalf("result %+v after pauses %v, want answered after one input pause", res, points)
	}
	if len(b.sent) != 1 || !strings.HasPrefix(b.sent[0].Prompt, "EDITED (the prompt") {
		t.Fatalf("sent %+v, want the edited prompt", b.sent)
	}
	paused, edited := ofType(events, agent.Paused), ofType(events, agent.Edited)
	if len(paused) != 1 || paused[0].Pause.Input == nil || paused[0].Round != 1 {
		t.Fatalf("paused events = %+v, want one with the input", paused)
	}
	if len(edited) != 1 || edited[0].Change.What != "input" || !strings.Contains(string(edited[0].Change.Now), "EDITED") ||
		strings.Contains(string(edited[0].Change.Was), "EDITED") {
		t.Fatalf("edited events = %+v, want what was there and what replaced it", edited)
	}
}

func TestStepFakedErrorReachesModel(t *testing.T) {
	b, conv, res, events := stepRun(t, context.Background(), [][]string{{mailCall}, {"It failed."}}, func(_ context.Context, p agent.Pause) agent.Edit {
		if p.At == agent.AtCall {
			return agent.Edit{Error: "mailbox full"}
		}
		return agent.Edit{}
	})
	if res.Reason != agent.Answered || len(b.sent) != 2 {
		t.Fatalf("result %+v after %d model calls, want an answer after two", res, len(b.sent))
	}
	want := "<tool_response>\n{\"error\":\"mailbox full\"}\n</tool_response>"
	if !strings.Contains(b.sent[1].Prompt, "(the prompt of 4 messages)") || conv.Messages[3].Content != want {
		t.Fatalf("responses turn = %q, want %q", conv.Messages[3].Content, want)
	}
	if len(ofType(events, agent.ToolStarted)) != 0 {
		t.Fatal("the tool ran although its result was faked")
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 1 || finished[0].Error != "mailbox full" {
		t.Fatalf("tool_finished = %+v, want the faked error", finished)
	}
	edited := ofType(events, agent.Edited)
	if len(edited) != 1 || edited[0].Change.What != "error" || *edited[0].Change.Call != 0 {
		t.Fatalf("edited = %+v, want the faked error of call 0", edited)
	}
	// Pauses come in the loop's order: input, call, response, input.
	var at []string
	for _, e := range ofType(events, agent.Paused) {
		at = append(at, string(e.Pause.At))
	}
	if got := strings.Join(at, " "); got != "input call response input" {
		t.Fatalf("pauses = %s", got)
	}
}

func TestStepEditedArgumentsRun(t *testing.T) {
	_, conv, _, events := stepRun(t, context.Background(), [][]string{{mailCall}, {"Sent."}}, func(_ context.Context, p agent.Pause) agent.Edit {
		if p.At == agent.AtCall {
			return agent.Edit{Arguments: json.RawMessage(`{"to": "b@example.com", "subject": "Hi", "body": "Hello"}`)}
		}
		return agent.Edit{}
	})
	started := ofType(events, agent.ToolStarted)
	if len(started) != 1 || !strings.Contains(string(started[0].Call.Arguments), "b@example.com") {
		t.Fatalf("tool_started = %+v, want the edited arguments", started)
	}
	if !strings.Contains(conv.Messages[3].Content, "b@example.com") {
		t.Fatalf("response %q, want the result of the edited call", conv.Messages[3].Content)
	}
}

func TestStepSkipAndEditedResponse(t *testing.T) {
	_, conv, _, events := stepRun(t, context.Background(), [][]string{{mailCall}, {"Skipped."}}, func(_ context.Context, p agent.Pause) agent.Edit {
		switch p.At {
		case agent.AtCall:
			return agent.Edit{Skip: true}
		case agent.AtResponse:
			if !strings.Contains(p.Response, "skipped by the user") {
				t.Errorf("response before the edit = %q, want the skip", p.Response)
			}
			edited := "<tool_response>\nnothing\n</tool_response>"
			return agent.Edit{Response: &edited}
		}
		return agent.Edit{}
	})
	if len(ofType(events, agent.ToolStarted))+len(ofType(events, agent.ToolFinished)) != 0 {
		t.Fatal("a skipped call ran")
	}
	if got := conv.Messages[3].Content; got != "<tool_response>\nnothing\n</tool_response>" {
		t.Fatalf("responses turn = %q, want the edited response", got)
	}
	responses := ofType(events, agent.ToolResponse)
	if len(responses) != 1 || responses[0].Text != conv.Messages[3].Content {
		t.Fatalf("tool_response = %+v, want the edited text", responses)
	}
	var what []string
	for _, e := range ofType(events, agent.Edited) {
		what = append(what, e.Change.What)
	}
	if strings.Join(what, " ") != "skip response" {
		t.Fatalf("edits = %v", what)
	}
}

func TestStepCancelWhilePaused(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	b, conv, res, _ := stepRun(t, ctx, [][]string{{mailCall}}, func(ctx context.Context, p agent.Pause) agent.Edit {
		if p.At == agent.AtInput {
			return agent.Edit{}
		}
		cancel()
		<-ctx.Done()
		return agent.Edit{Error: "ignored: the run was stopped"}
	})
	if res.Reason != agent.Cancelled || len(b.sent) != 1 {
		t.Fatalf("result %+v after %d model calls, want cancelled after one", res, len(b.sent))
	}
	if got := conv.Messages[3].Content; !strings.Contains(got, "stopped by the user") {
		t.Fatalf("responses turn = %q, want the call answered as stopped", got)
	}
}

func TestPauseCheck(t *testing.T) {
	text := "x"
	raw := &llm.Input{Mode: llm.ModeRaw, Prompt: "p"}
	cases := []struct {
		p     agent.Pause
		e     agent.Edit
		field string // "" when the edit fits
	}{
		{agent.Pause{At: agent.AtInput, Input: raw}, agent.Edit{}, ""},
		{agent.Pause{At: agent.AtInput, Input: raw}, agent.Edit{Input: &llm.Input{Mode: llm.ModeRaw, Prompt: "q"}}, ""},
		{agent.Pause{At: agent.AtInput, Input: raw}, agent.Edit{Input: &llm.Input{Mode: llm.ModeChat, Prompt: "q"}}, "input"},
		{agent.Pause{At: agent.AtInput, Input: raw}, agent.Edit{Input: &llm.Input{Mode: llm.ModeRaw}}, "input"},
		{agent.Pause{At: agent.AtInput, Input: raw}, agent.Edit{Skip: true}, "skip"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Arguments: json.RawMessage(`[1]`)}, "arguments"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Result: &text}, ""},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Response: &text}, "response"},
		{agent.Pause{At: agent.AtResponse}, agent.Edit{Response: &text}, ""},
		{agent.Pause{At: agent.AtResponse}, agent.Edit{Error: "e"}, "error"},
	}
	for _, c := range cases {
		err := c.p.Check(c.e)
		ee, _ := err.(*agent.EditError)
		if (c.field == "") != (err == nil) || ee != nil && ee.Field != c.field {
			t.Errorf("Check(%+v) at %s = %v, want a problem with %q", c.e, c.p.At, err, c.field)
		}
	}
}
