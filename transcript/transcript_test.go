package transcript_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/transcript"
)

// A real run folds into its rounds, calls and results: what each front
// end used to rebuild from the events itself.
func TestFoldARun(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	const broken = `<tool_call>{"name": "send_mail", "arguments": {"to": }}</tool_call>`
	reply1 := "<think>Mail John.</think>\nSending it." + sendMailCall("john@example.com") + broken
	f.server.Reply(ollamatest.Reply{Text: reply1}, ollamatest.Reply{Text: "Sent to John."})
	events := f.run(context.Background(), "Mail John")

	tr := transcript.Fold(events)
	if tr.Run == nil || !slices.Contains(tr.Run.Tools, "send_mail") {
		t.Fatalf("Run = %+v, want run_started's payload", tr.Run)
	}
	if len(tr.Rounds) != 2 {
		t.Fatalf("%d rounds, want 2", len(tr.Rounds))
	}
	r1 := tr.Round(1)
	if r1.Raw() != reply1 || r1.Thinking() != "Mail John." || strings.TrimSpace(r1.Text()) != "Sending it." {
		t.Errorf("round 1: raw %q, thinking %q, text %q", r1.Raw(), r1.Thinking(), r1.Text())
	}
	if r1.Input == nil || !r1.Replied() || r1.Stats.DoneReason != "stop" {
		t.Errorf("round 1: input %v, stats %+v", r1.Input, r1.Stats)
	}
	sent, bad := r1.Call(0), r1.Call(1)
	if sent == nil || bad == nil || len(r1.Calls) != 2 {
		t.Fatalf("round 1's calls = %+v, want 2", r1.Calls)
	}
	if sent.State != transcript.Parsed || sent.Name != "send_mail" || !sent.Ran || !sent.Finished ||
		!strings.Contains(sent.Result, "sent") || string(sent.RanWith) != string(sent.Arguments) {
		t.Errorf("the valid call = %+v", sent)
	}
	if bad.State != transcript.Invalid || !strings.Contains(bad.Reason, "not valid JSON") || bad.Ran || bad.Finished {
		t.Errorf("the invalid call = %+v, want it invalid and not run", bad)
	}
	if len(r1.Responses) != 1 || !strings.Contains(r1.Responses[0], "not valid JSON") {
		t.Errorf("round 1's responses = %q", r1.Responses)
	}
	if tr.Finish == nil || tr.Finish.Reason != agent.Answered || tr.Finish.Answer != "Sent to John." || tr.Failure != nil {
		t.Errorf("finish = %+v, failure %+v", tr.Finish, tr.Failure)
	}
	if got := tr.Raw(); got != reply1+"Sent to John." {
		t.Errorf("the run's raw output = %q", got)
	}
	if got := tr.CalledBefore(2); !slices.Equal(got, []string{"send_mail"}) {
		t.Errorf("CalledBefore(2) = %q, want the tool round 1 ran", got)
	}
	if got := tr.CalledBefore(1); got != nil {
		t.Errorf("CalledBefore(1) = %q, want none", got)
	}
}

// A call edited at its pause keeps what the model wrote and what ran
// apart; one whose result was typed in is faked, one skipped is skipped.
func TestEditsAtPauses(t *testing.T) {
	index := func(i int) *int { return &i }
	wrote := &agent.Call{Index: 0, Name: "add", Arguments: json.RawMessage(`{"a":1}`)}
	ran := &agent.Call{Index: 0, Name: "add", Arguments: json.RawMessage(`{"a":2}`)}
	other := &agent.Call{Index: 1, Name: "add", Arguments: json.RawMessage(`{"a":3}`)}
	skipped := &agent.Call{Index: 2, Name: "add", Arguments: json.RawMessage(`{"a":4}`)}
	tr := transcript.Fold([]agent.Event{
		{Type: agent.RoundStarted, Round: 1, Input: &llm.Input{}},
		{Type: agent.ToolCallParsed, Round: 1, Call: wrote},
		{Type: agent.ToolCallParsed, Round: 1, Call: other},
		{Type: agent.ToolCallParsed, Round: 1, Call: skipped},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: index(0), What: "arguments"}},
		{Type: agent.ToolStarted, Round: 1, Call: ran},
		{Type: agent.ToolFinished, Round: 1, Call: ran, Result: "3"},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: index(1), What: "result"}},
		{Type: agent.ToolFinished, Round: 1, Call: other, Result: "9"},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: index(2), What: "skip"}},
		{Type: agent.Error, Round: 1, Error: "nobody continued it"},
		{Type: agent.RunFinished, Reason: agent.Cancelled, Rounds: 1},
	})
	r := tr.Round(1)
	if c := r.Call(0); string(c.Arguments) != `{"a":1}` || string(c.RanWith) != `{"a":2}` || c.Result != "3" || c.Faked {
		t.Errorf("the edited call = %+v, want written {\"a\":1}, run with {\"a\":2}", c)
	}
	if c := r.Call(1); !c.Faked || c.Ran || c.Result != "9" {
		t.Errorf("the faked call = %+v", c)
	}
	if c := r.Call(2); !c.Skipped || c.Ran || c.Finished {
		t.Errorf("the skipped call = %+v", c)
	}
	if len(r.Edits) != 3 || tr.Failure == nil || tr.Failure.Error != "nobody continued it" || tr.Finish.Reason != agent.Cancelled {
		t.Errorf("edits %d, failure %+v, finish %+v", len(r.Edits), tr.Failure, tr.Finish)
	}
}

// Events of rounds that never started, and types this toolscope does not
// know, change nothing: a recording may be cut, or come from a newer one.
func TestIgnoresWhatItCannotPlace(t *testing.T) {
	tr := transcript.Fold([]agent.Event{
		{Type: agent.TextDelta, Round: 3, Text: "lost"},
		{Type: "from_the_future", Round: 1},
		{Type: agent.ToolFinished, Round: 2, Call: &agent.Call{Index: 5}},
	})
	if len(tr.Rounds) != 0 || tr.Last() != nil || tr.Round(3) != nil || len(tr.Calls()) != 0 {
		t.Errorf("transcript = %+v, want it empty", tr)
	}
}
