package terminal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
)

func TestRenderer(t *testing.T) {
	call := &agent.Call{Name: "send_mail", Arguments: json.RawMessage(`{"to":"a@co.com"}`)}
	events := []agent.Event{
		{Type: agent.RunStarted, Run: &agent.RunInfo{Info: llm.Info{Backend: "demo", Model: "toolscope-demo", Demo: true}, Tools: []string{"send_mail", "cancel_meeting"}}},
		{Type: agent.RoundStarted, Round: 1},
		{Type: agent.ThinkingDelta, Round: 1, Text: "\nMail\nit."},
		{Type: agent.ThinkingDelta, Round: 1, Text: " Now."},
		{Type: agent.TextDelta, Round: 1, Text: "Sending now."},
		{Type: agent.ToolCallInvalid, Round: 1, Call: &agent.Call{Raw: "\n{bad\n}", Reason: "not JSON"}},
		{Type: agent.ToolCallInThinking, Round: 1, Text: "<tool_call>"},
		{Type: agent.ToolFinished, Round: 1, Call: call, Result: "{\n  \"status\": \"sent\"\n}", DurationMS: 3012},
		{Type: agent.ToolFinished, Round: 1, Call: call, Error: "disk full", DurationMS: 40},
		{Type: agent.ToolResponse, Round: 1},
		{Type: agent.RoundFinished, Round: 1, Stats: &agent.RoundStats{DoneReason: "stop", PromptTokens: 300, OutputTokens: 42, EvalMS: 2000, FirstTokenMS: 120}},
		{Type: agent.RoundStarted, Round: 2},
		{Type: agent.TextDelta, Round: 2, Text: "Sent to a@co.com."},
		{Type: agent.RunFinished, Reason: agent.Answered, Text: "Sent to a@co.com."},
	}
	var out, log strings.Builder
	r := &Renderer{Out: &out, Log: &log, ShowThinking: true, Verbose: true}
	for _, e := range events {
		r.Render(e)
	}
	if out.String() != "Sent to a@co.com.\n" {
		t.Errorf("stdout = %q, want the answer alone", out.String())
	}
	want := `model: toolscope-demo, the offline demo model (scripted, not a real LLM)
tools: send_mail, cancel_meeting
thinking: Mail it. Now.
invalid tool call: not JSON
  raw: {bad }
a tool call inside thinking was not run: the reply ended inside thinking after <tool_call>
tool: send_mail({"to":"a@co.com"}) = { "status": "sent" }  (3.0s)
tool: send_mail({"to":"a@co.com"}) = error: disk full  (0.0s)
model: Sending now.
round 1: 300 prompt tokens, 42 output tokens, 21.0 tok/s (scripted), first token after 120 ms, done: stop
`
	if log.String() != want {
		t.Errorf("log\n got: %q\nwant: %q", log.String(), want)
	}
}

func TestRendererStops(t *testing.T) {
	for _, c := range []struct {
		reason agent.Reason
		rounds int
		want   string
	}{
		{agent.MaxRounds, 8, "stopped: the model still called tools after 8 rounds (raise --max-rounds)\n"},
		{agent.MaxRounds, 1, "stopped: the model still called tools after 1 round (raise --max-rounds)\n"},
		{agent.Cancelled, 1, "stopped by the user\n"},
	} {
		var out, log strings.Builder
		r := &Renderer{Out: &out, Log: &log}
		r.Render(agent.Event{Type: agent.RunFinished, Reason: c.reason, Rounds: c.rounds})
		if out.String() != "" || log.String() != c.want {
			t.Errorf("%s: stdout %q, log %q; want log %q", c.reason, out.String(), log.String(), c.want)
		}
	}
}

// A call cut by a stop or a limit is said as such, not as an invalid call.
func TestRendererSaysACallWasCut(t *testing.T) {
	for reason, want := range map[agent.Reason]string{
		agent.Cancelled: "stopped: partial tool call, not run\n  raw: {\"name\": \"send_mail\"\n",
		agent.CutOff:    "cut off: partial tool call, not run\n  raw: {\"name\": \"send_mail\"\n",
	} {
		var out, log strings.Builder
		r := &Renderer{Out: &out, Log: &log}
		r.Render(agent.Event{Type: agent.ToolCallCut, Reason: reason, Call: &agent.Call{Raw: "\n{\"name\": \"send_mail\"", Reason: "stopped by the user"}})
		if log.String() != want {
			t.Errorf("%s: log %q, want %q", reason, log.String(), want)
		}
	}
}

// A chat renders many runs with one Renderer: the model and tools lines
// come once, and again only when they change.
func TestRendererSaysModelAndToolsOnce(t *testing.T) {
	var out, log strings.Builder
	r := &Renderer{Out: &out, Log: &log}
	demo := llm.Info{Backend: "demo", Model: "toolscope-demo", Demo: true}
	for _, tools := range [][]string{{"send_mail"}, {"send_mail"}, {"send_mail", "multiply"}} {
		r.Render(agent.Event{Type: agent.RunStarted, Run: &agent.RunInfo{Info: demo, Tools: tools}})
	}
	want := "model: toolscope-demo, the offline demo model (scripted, not a real LLM)\ntools: send_mail\n" +
		"model: toolscope-demo, the offline demo model (scripted, not a real LLM)\ntools: send_mail, multiply\n"
	if log.String() != want {
		t.Errorf("log\n got: %q\nwant: %q", log.String(), want)
	}
}

func TestRendererDropsEscapeSequences(t *testing.T) {
	var out, log strings.Builder
	r := &Renderer{Out: &out, Log: &log, ShowThinking: true}
	call := &agent.Call{Name: "note", Arguments: json.RawMessage(`{"t":"\u001b]0;pwned\u0007"}`)}
	r.Render(agent.Event{Type: agent.ThinkingDelta, Text: "hmm \x1b[2J"})
	r.Render(agent.Event{Type: agent.ToolFinished, Call: call, Result: "ok \x1b]52;c;ZXZpbA==\x07"})
	r.Render(agent.Event{Type: agent.RunFinished, Reason: agent.Answered, Text: "done\x1b[31m\nbye\tnow"})
	if strings.ContainsAny(out.String()+log.String(), "\x1b\x07") {
		t.Fatalf("escape sequences reached the terminal:\n%q\n%q", out.String(), log.String())
	}
	if out.String() != "done[31m\nbye\tnow\n" {
		t.Errorf("stdout = %q: newlines and tabs must stay", out.String())
	}
}

// TestErrorsNameTheirFlag checks that a fix reads as the command line
// applies it: the step outside toolscope, then the flag.
func TestErrorsNameTheirFlag(t *testing.T) {
	for _, tt := range []struct {
		fix  *llm.Fix
		want string
	}{
		{nil, "error: it broke\n"},
		{&llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"},
			"error: it broke\nnext step: start Ollama with 'ollama serve', or run with --backend demo\n"},
		{&llm.Fix{Setting: llm.SettingMode, Value: "chat"}, "error: it broke\nnext step: run with --mode chat\n"},
		{&llm.Fix{Do: "pick a thinking model such as qwen3", Setting: llm.SettingThink, Value: "false"},
			"error: it broke\nnext step: pick a thinking model such as qwen3, or run with --think=false\n"},
		{&llm.Fix{Do: "run 'ollama pull m'", Setting: llm.SettingModel},
			"error: it broke\nnext step: run 'ollama pull m', or run with another --model\n"},
		{&llm.Fix{Do: "sign in with 'ollama signin'"}, "error: it broke\nnext step: sign in with 'ollama signin'\n"},
	} {
		var out, log strings.Builder
		r := &Renderer{Out: &out, Log: &log}
		r.Render(agent.Event{Type: agent.Error, Error: "it broke", Fix: tt.fix})
		if log.String() != tt.want {
			t.Errorf("fix %+v: log %q, want %q", tt.fix, log.String(), tt.want)
		}
	}
	err := fmt.Errorf("check: %w", &llm.Error{Problem: "it broke", Fix: &llm.Fix{Setting: llm.SettingMode, Value: "chat"}})
	if got, want := Explain(err), "it broke\nnext step: run with --mode chat"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if got := Explain(errors.New("plain")); got != "plain" {
		t.Errorf("Explain of a plain error = %q, want its text", got)
	}
}

// A result typed at a pause (step mode) was not timed: its line says it
// was faked, and only for that call of that round.
func TestRendererMarksFakedResults(t *testing.T) {
	first, second := 0, 1
	mail := func(i int) *agent.Call {
		return &agent.Call{Index: i, Name: "send_mail", Arguments: json.RawMessage(`{}`)}
	}
	var out, log strings.Builder
	r := &Renderer{Out: &out, Log: &log}
	for _, e := range []agent.Event{
		{Type: agent.RoundStarted, Round: 1},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: &first, What: "error"}},
		{Type: agent.ToolFinished, Round: 1, Call: mail(0), Error: "mailbox full"},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: &second, What: "arguments"}},
		{Type: agent.ToolFinished, Round: 1, Call: mail(1), Result: "sent", DurationMS: 1500},
		{Type: agent.RoundStarted, Round: 2},
		{Type: agent.ToolFinished, Round: 2, Call: mail(0), Result: "sent", DurationMS: 200},
	} {
		r.Render(e)
	}
	want := "tool: send_mail({}) = error: mailbox full  (faked)\n" +
		"edited: call 2's arguments\n" +
		"tool: send_mail({}) = sent  (1.5s)\n" +
		"tool: send_mail({}) = sent  (0.2s)\n"
	if log.String() != want {
		t.Errorf("log\n got: %q\nwant: %q", log.String(), want)
	}
}

// Each edit made at a pause (step mode) has its line, live (where it
// confirms what was typed) and in a replay, before the lines it changes.
func TestRendererSaysWhatWasEdited(t *testing.T) {
	first, second := 0, 1
	call := func(i int, name, args string) *agent.Call {
		return &agent.Call{Index: i, Name: name, Arguments: json.RawMessage(args)}
	}
	var out, log strings.Builder
	r := &Renderer{Out: &out, Log: &log}
	for _, e := range []agent.Event{
		{Type: agent.RoundStarted, Round: 1},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtInput, What: "input"}},
		{Type: agent.ToolCallParsed, Round: 1, Call: call(0, "send_mail", `{"to":"a"}`)},
		{Type: agent.ToolCallParsed, Round: 1, Call: call(1, "cancel_meeting", `{}`)},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: &first, What: "arguments"}},
		{Type: agent.ToolFinished, Round: 1, Call: call(0, "send_mail", `{"to":"b"}`), Result: "sent", DurationMS: 100},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtCall, Call: &second, What: "skip"}},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: agent.AtResponse, What: "response"}},
		{Type: agent.Edited, Round: 1, Change: &agent.Change{At: "later", What: "mood"}},
		{Type: agent.RoundStarted, Round: 2},
		{Type: agent.Edited, Round: 2, Change: &agent.Change{At: agent.AtCall, Call: &second, What: "skip"}},
	} {
		r.Render(e)
	}
	want := "edited: the input of round 1\n" +
		"edited: send_mail's arguments\n" +
		"tool: send_mail({\"to\":\"b\"}) = sent  (0.1s)\n" +
		"skipped: cancel_meeting (not run)\n" +
		"edited: the tool responses of round 1\n" +
		"edited: mood at the later pause of round 1\n" +
		"skipped: call 2 (not run)\n"
	if log.String() != want || out.String() != "" {
		t.Errorf("log\n got: %q\nwant: %q", log.String(), want)
	}
}
