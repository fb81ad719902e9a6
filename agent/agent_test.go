package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/llm/openai"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

var now = time.Date(2026, 11, 29, 21, 49, 0, 0, time.UTC)

// fixture is an agent wired to an in-process Ollama.
type fixture struct {
	t      *testing.T
	server *ollamatest.Server
	agent  *agent.Agent
}

type option func(*agent.Config)

func newFixture(t *testing.T, mode llm.Mode, extra []tools.Tool, opts ...option) *fixture {
	t.Helper()
	server := ollamatest.New(t)
	backend, err := ollama.New(ollama.Config{Host: server.Host(), Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	registry, err := tools.NewRegistry(append(tools.Stubs(0), extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{Backend: backend, Tools: registry, Now: func() time.Time { return now }}
	for _, o := range opts {
		o(&cfg)
	}
	return &fixture{t: t, server: server, agent: agent.New(cfg)}
}

// run runs one request and returns its result and events.
func (f *fixture) run(ctx context.Context, conv *agent.Conversation, message string) (agent.Result, []agent.Event) {
	var events []agent.Event
	res := f.agent.Run(ctx, conv, message, func(e agent.Event) { events = append(events, e) })
	return res, events
}

func sendMailCall(to string) string {
	return "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"" + to + "\", \"subject\": \"Standup\", \"body\": \"See you at 9.\"}}\n</tool_call>"
}

func ofType(events []agent.Event, typ agent.Type) []agent.Event {
	var out []agent.Event
	for _, e := range events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestOneCallThenAnswer(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(
		ollamatest.Reply{Text: "<think>\nThe user wants an email sent.\n</think>\n\n" + sendMailCall("john@example.com")},
		ollamatest.Reply{Text: "<think>\nIt was sent.\n</think>\n\nYour email to john@example.com has been sent."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "Email john@example.com about the standup")

	if res.Reason != agent.Answered || res.Text != "Your email to john@example.com has been sent." || res.Rounds != 2 {
		t.Fatalf("result = %+v, want answered in 2 rounds", res)
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 1 || finished[0].Call.Name != "send_mail" || finished[0].Error != "" {
		t.Fatalf("tool_finished events = %+v, want one successful send_mail", finished)
	}
	result := finished[0].Result
	if !strings.Contains(result, `"status":"sent"`) {
		t.Fatalf("send_mail result %q does not say sent", result)
	}

	// The result goes back in exactly the format of DESIGN.md, in one user
	// turn after the assistant's raw call.
	requests := f.server.Requests()
	if len(requests) != 2 {
		t.Fatalf("the model was asked %d times, want 2", len(requests))
	}
	wantTurn := "<|im_start|>assistant\n" + sendMailCall("john@example.com") + "<|im_end|>\n" +
		"<|im_start|>user\n<tool_response>\n" + result + "\n</tool_response> /think<|im_end|>\n<|im_start|>assistant\n"
	if !strings.HasSuffix(requests[1].Prompt, wantTurn) {
		t.Fatalf("round 2 prompt does not end with the call and its response\n got: %q\nwant suffix: %q", requests[1].Prompt, wantTurn)
	}
	responses := ofType(events, agent.ToolResponse)
	if len(responses) != 1 || responses[0].Text != "<tool_response>\n"+result+"\n</tool_response>" {
		t.Fatalf("tool_response events = %+v", responses)
	}
	rounds := ofType(events, agent.RoundStarted)
	if len(rounds) != 2 || rounds[1].Input.Prompt != requests[1].Prompt {
		t.Fatalf("round_started does not carry the exact prompt the model got")
	}
	thinking := ofType(events, agent.ThinkingDelta)
	if len(thinking) == 0 || thinking[0].ParsedBy != "toolscope" {
		t.Fatalf("thinking was not parsed by toolscope: %+v", thinking)
	}
}

func TestEventsAreNumberedAndOrdered(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(ollamatest.Reply{Text: sendMailCall("a@b.co")}, ollamatest.Reply{Text: "Sent."})
	_, events := f.run(context.Background(), &agent.Conversation{}, "mail a@b.co")

	for i, e := range events {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	var order []agent.Type
	for _, e := range events {
		if e.Type != agent.Token && e.Type != agent.TextDelta && e.Type != agent.ToolCallDelta {
			order = append(order, e.Type)
		}
	}
	want := []agent.Type{
		agent.RunStarted, agent.RoundStarted, agent.ToolCallOpened, agent.ToolCallParsed, agent.RoundFinished,
		agent.ToolStarted, agent.ToolFinished, agent.ToolResponse,
		agent.RoundStarted, agent.RoundFinished, agent.RunFinished,
	}
	if strings.Join(types(order), " ") != strings.Join(types(want), " ") {
		t.Fatalf("event order\n got: %v\nwant: %v", order, want)
	}
	var raw strings.Builder
	for _, e := range ofType(events, agent.Token) {
		if e.Round == 1 {
			raw.WriteString(e.Text)
		}
	}
	if raw.String() != sendMailCall("a@b.co") {
		t.Fatalf("token events of round 1 = %q, want the raw reply", raw.String())
	}
	stats := ofType(events, agent.RoundFinished)[0].Stats
	if stats.DoneReason != "stop" || stats.OutputTokens == 0 || stats.PromptTokens == 0 {
		t.Fatalf("round stats = %+v, want the counters of the done line", stats)
	}
}

func types(ts []agent.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func TestEventJSONFieldNames(t *testing.T) {
	e := agent.Event{Seq: 3, Type: agent.ToolFinished, AtMS: 12, Round: 1,
		Call:   &agent.Call{Index: 0, Name: "send_mail", Arguments: json.RawMessage(`{"to":"x"}`), ParsedBy: "toolscope"},
		Result: `{"status":"sent"}`, DurationMS: 3000}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seq":3,"type":"tool_finished","at_ms":12,"round":1,"call":{"index":0,"name":"send_mail","arguments":{"to":"x"},"parsed_by":"toolscope"},"result":"{\"status\":\"sent\"}","duration_ms":3000}`
	if string(b) != want {
		t.Fatalf("JSON\n got: %s\nwant: %s", b, want)
	}
}

func TestTwoCallsInOneReply(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(
		ollamatest.Reply{Text: sendMailCall("a@co.com") + "\n" + sendMailCall("b@co.com")},
		ollamatest.Reply{Text: "Both sent."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "email a and b")
	if res.Reason != agent.Answered || res.Text != "Both sent." {
		t.Fatalf("result = %+v", res)
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 2 || finished[0].Call.Index != 0 || finished[1].Call.Index != 1 ||
		!strings.Contains(finished[0].Result, "a@co.com") || !strings.Contains(finished[1].Result, "b@co.com") {
		t.Fatalf("calls ran out of order or not at all: %+v", finished)
	}
	response := ofType(events, agent.ToolResponse)[0].Text
	want := "<tool_response>\n" + finished[0].Result + "\n</tool_response>\n<tool_response>\n" + finished[1].Result + "\n</tool_response>"
	if response != want {
		t.Fatalf("response turn\n got: %q\nwant: %q", response, want)
	}
}

func TestMalformedCallThenCorrected(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(
		ollamatest.Reply{Text: `<tool_call>{"name": "send_mail", "arguments": {"to": "a@co.com",}}</tool_call>`},
		ollamatest.Reply{Text: sendMailCall("a@co.com")},
		ollamatest.Reply{Text: "Sent."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "email a")
	if res.Reason != agent.Answered || res.Rounds != 3 {
		t.Fatalf("result = %+v, want an answer after 3 rounds", res)
	}
	invalid := ofType(events, agent.ToolCallInvalid)
	if len(invalid) != 1 || !strings.Contains(invalid[0].Call.Reason, "not valid JSON") {
		t.Fatalf("invalid call events = %+v", invalid)
	}
	if started := ofType(events, agent.ToolStarted); len(started) != 1 || started[0].Round != 2 {
		t.Fatalf("the malformed call must not run; the corrected one must: %+v", started)
	}
	first := ofType(events, agent.ToolResponse)[0].Text
	if !strings.HasPrefix(first, "<tool_response>\n{\"error\":\"") || !strings.Contains(first, "not valid JSON") || strings.Contains(first, `\u003c`) {
		t.Fatalf("the model was not told its call was malformed: %q", first)
	}
}

func TestUnknownToolAndBadArguments(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(
		ollamatest.Reply{Text: `<tool_call>{"name": "send_fax", "arguments": {}}</tool_call><tool_call>{"name": "send_mail", "arguments": {"to": "a@co.com"}}</tool_call>`},
		ollamatest.Reply{Text: "I could not do that."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "fax it")
	if res.Reason != agent.Answered {
		t.Fatalf("result = %+v: a bad call must not end the run", res)
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 2 {
		t.Fatalf("tool_finished events = %+v", finished)
	}
	if !strings.Contains(finished[0].Error, `unknown tool "send_fax"`) || !strings.Contains(finished[0].Error, "send_mail") {
		t.Errorf("unknown tool error = %q, want it to name the tool and the ones available", finished[0].Error)
	}
	if !strings.Contains(finished[1].Error, `missing required argument "subject"`) {
		t.Errorf("bad argument error = %q, want it to name the field", finished[1].Error)
	}
	response := ofType(events, agent.ToolResponse)[0].Text
	if strings.Count(response, `{"error":`) != 2 {
		t.Errorf("both errors must go back to the model: %q", response)
	}
}

// blocking is a tool that waits for its context, or forever if stubborn.
func blocking(name string, started chan<- struct{}, stubborn bool) tools.Tool {
	return tools.Func(name, "Waits.", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, _ struct{}) (string, error) {
			if started != nil {
				close(started)
			}
			if stubborn {
				select {} // ignores its context, as a badly written tool might
			}
			<-ctx.Done()
			return "", ctx.Err()
		})
}

func TestToolTimeoutPanicAndError(t *testing.T) {
	panicky := tools.Func("explode", "Panics.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, struct{}) (string, error) { panic("boom") })
	failing := tools.Func("fail", "Fails.", json.RawMessage(`{"type":"object"}`),
		func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") })
	f := newFixture(t, llm.ModeRaw,
		[]tools.Tool{blocking("slow", nil, false), blocking("stuck", nil, true), panicky, failing},
		func(c *agent.Config) { c.ToolTimeout = 20 * time.Millisecond })
	call := func(name string) string { return `<tool_call>{"name": "` + name + `"}</tool_call>` }
	f.server.Reply(
		ollamatest.Reply{Text: call("slow") + call("stuck") + call("explode") + call("fail")},
		ollamatest.Reply{Text: "Nothing worked."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "try")
	if res.Reason != agent.Answered {
		t.Fatalf("result = %+v: failing tools must not end the run", res)
	}
	finished := ofType(events, agent.ToolFinished)
	want := []string{"tool slow did not answer within 20ms", "tool stuck did not answer within 20ms", "tool explode crashed: boom", "disk full"}
	if len(finished) != len(want) {
		t.Fatalf("got %d tool_finished events, want %d", len(finished), len(want))
	}
	for i, w := range want {
		if finished[i].Error != w {
			t.Errorf("call %d error = %q, want %q", i, finished[i].Error, w)
		}
	}
}

func TestMaxRounds(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil, func(c *agent.Config) { c.MaxRounds = 2 })
	f.server.Reply(ollamatest.Reply{Text: sendMailCall("a@co.com")}, ollamatest.Reply{Text: sendMailCall("a@co.com")})
	conv := &agent.Conversation{}
	res, events := f.run(context.Background(), conv, "loop")
	if res.Reason != agent.MaxRounds || res.Rounds != 2 {
		t.Fatalf("result = %+v, want max_rounds after 2", res)
	}
	if last := conv.Messages[len(conv.Messages)-1]; last.Role != llm.RoleAssistant || !strings.HasPrefix(last.Content, "(stopped") {
		t.Fatalf("last message = %+v, want the assistant's turn closed after the last tool responses", last)
	}
	if n := len(f.server.Requests()); n != 2 {
		t.Fatalf("the model was asked %d times, want 2", n)
	}
	last := events[len(events)-1]
	if last.Type != agent.RunFinished || last.Reason != agent.MaxRounds {
		t.Fatalf("last event = %+v", last)
	}
}

func TestCancelWhileToolRuns(t *testing.T) {
	started := make(chan struct{})
	f := newFixture(t, llm.ModeRaw, []tools.Tool{blocking("slow", started, false)})
	f.server.Reply(ollamatest.Reply{Text: `<tool_call>{"name": "slow"}</tool_call>`})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	conv := &agent.Conversation{}
	res, events := f.run(ctx, conv, "wait")
	if res.Reason != agent.Cancelled {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 1 || finished[0].Error != "stopped by the user" || !finished[0].Stopped {
		t.Fatalf("tool_finished = %+v, want the tool's cancellation in words, marked stopped", finished)
	}
	// The history stays well-formed: the call has its response, in the
	// same words, and the assistant's turn is closed.
	n := len(conv.Messages)
	responses, last := conv.Messages[n-2], conv.Messages[n-1]
	if responses.Role != llm.RoleUser || responses.Content != "<tool_response>\n{\"error\":\"stopped by the user\"}\n</tool_response>" {
		t.Fatalf("next to last message = %+v, want the tool response turn", responses)
	}
	if last.Role != llm.RoleAssistant || last.Content != "(stopped by the user)" {
		t.Fatalf("last message = %+v, want the assistant's turn closed", last)
	}
}

// A request after Stop is a turn of its own: Ollama's templates merge
// consecutive user messages, and the demo model, like a real one, then
// read the new request as more tool results and answered those.
func TestFollowUpAfterStopIsItsOwnTurn(t *testing.T) {
	newAgent := func(delay time.Duration) *agent.Agent {
		registry, err := tools.NewRegistry(tools.Stubs(delay)...)
		if err != nil {
			t.Fatal(err)
		}
		return agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry, Now: func() time.Time { return now }})
	}
	conv := &agent.Conversation{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stopped []agent.Event
	res := newAgent(time.Hour).Run(ctx, conv, "Schedule a meeting with alice@co.com on 2026-12-01 at 10:00 about the launch", func(e agent.Event) {
		stopped = append(stopped, e)
		if e.Type == agent.ToolStarted {
			cancel()
		}
	})
	if res.Reason != agent.Cancelled || len(ofType(stopped, agent.ToolStarted)) != 1 {
		t.Fatalf("result = %+v, want a run stopped during its tool", res)
	}

	var events []agent.Event
	res = newAgent(0).Run(context.Background(), conv, "Send an email to john@example.com about the launch",
		func(e agent.Event) { events = append(events, e) })
	started := ofType(events, agent.ToolStarted)
	if res.Reason != agent.Answered || len(started) != 1 || started[0].Call.Name != "send_mail" {
		t.Fatalf("result = %+v, tools started = %d: the follow-up was not acted on", res, len(started))
	}
	prompt := ofType(events, agent.RoundStarted)[0].Input.Prompt
	want := "<|im_start|>user\n<tool_response>\n{\"error\":\"stopped by the user\"}\n</tool_response><|im_end|>\n" +
		"<|im_start|>assistant\n(stopped by the user)<|im_end|>\n" +
		"<|im_start|>user\nSend an email to john@example.com about the launch /think<|im_end|>\n"
	if !strings.Contains(prompt, want) {
		t.Fatalf("the follow-up's prompt does not close the stopped turn and start a new one\nwant: %q\nin: %q", want, prompt)
	}
}

func TestCancelWhileModelStreams(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	ended := make(chan struct{})
	f.server.Reply(ollamatest.Reply{Text: "I am thinking about", Hold: true, Ended: ended})
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	conv := &agent.Conversation{}
	res := f.agent.Run(ctx, conv, "hi", func(e agent.Event) {
		if e.Type == agent.Token {
			once.Do(cancel)
		}
	})
	if res.Reason != agent.Cancelled {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	<-ended // the server saw the request end
	// The partial reply, as far as it came before the cancel, is kept as
	// written, and the model reads that it was cut.
	n := len(conv.Messages)
	if partial, note := conv.Messages[n-2], conv.Messages[n-1]; partial.Role != llm.RoleAssistant || partial.Content == "" || !strings.HasPrefix("I am thinking about", partial.Content) ||
		note.Role != llm.RoleAssistant || note.Content != "(stopped by the user)" {
		t.Fatalf("conversation ends with %+v, %+v; want the partial reply, then the note", partial, note)
	}
}

// A stop while the model writes a call cuts the call, and the model did
// not write it broken: no parser's complaint reaches the page or the
// model, which reads that the user stopped it, as of a stopped tool.
func TestCancelWhileCallStreams(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	partial := "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"a@"
	f.server.Reply(ollamatest.Reply{Text: partial, Hold: true}, ollamatest.Reply{Text: "Not sent."})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var events []agent.Event
	conv := &agent.Conversation{}
	res := f.agent.Run(ctx, conv, "mail a", func(e agent.Event) {
		events = append(events, e)
		if e.Type == agent.Token && strings.Contains(e.Text, "@") {
			once.Do(cancel)
		}
	})
	if res.Reason != agent.Cancelled {
		t.Fatalf("result = %+v, want cancelled", res)
	}
	if invalid := ofType(events, agent.ToolCallInvalid); len(invalid) != 0 {
		t.Fatalf("a stopped call was reported invalid: %+v", invalid[0].Call)
	}
	cut := ofType(events, agent.ToolCallCut)
	if len(cut) != 1 || cut[0].Reason != agent.Cancelled || cut[0].Call.Reason != "stopped by the user" || !strings.Contains(cut[0].Call.Raw, "send_mail") {
		t.Fatalf("tool_call_cut events = %+v, want one for the stopped call", cut)
	}

	f.run(context.Background(), conv, "Did you send it?")
	prompt := f.server.Requests()[1].Prompt
	want := partial + "<|im_end|>\n" +
		"<|im_start|>user\n<tool_response>\n{\"error\":\"stopped by the user\"}\n</tool_response><|im_end|>\n" +
		"<|im_start|>assistant\n(stopped by the user)<|im_end|>\n"
	if !strings.Contains(prompt, want) || strings.Contains(prompt, streamparser.Unclosed) {
		t.Fatalf("the next prompt does not say the user stopped the call\nwant: %q\nin: %q", want, prompt)
	}
}

// A reply that the context or token limit cut off is no answer, from
// Ollama ("done_reason": "length") or an OpenAI-compatible server
// ("finish_reason": "length"), and a call it cut is not the model's
// mistake either.
func TestReplyCutAtTheLengthLimit(t *testing.T) {
	ollamaCut := func(t *testing.T, text string) llm.Backend {
		server := ollamatest.New(t)
		server.Reply(ollamatest.Reply{Text: text, DoneReason: llm.DoneLength})
		backend, err := ollama.New(ollama.Config{Host: server.Host()})
		if err != nil {
			t.Fatal(err)
		}
		return backend
	}
	openaiCut := func(t *testing.T, text string) llm.Backend {
		server := openaitest.New(t)
		server.Reply(openaitest.Reply{Text: text, FinishReason: llm.DoneLength})
		backend, err := openai.New(openai.Config{BaseURL: server.URL()})
		if err != nil {
			t.Fatal(err)
		}
		return backend
	}
	for name, cut := range map[string]func(*testing.T, string) llm.Backend{"ollama": ollamaCut, "openai": openaiCut} {
		t.Run(name+"/text", func(t *testing.T) {
			a := agent.New(agent.Config{Backend: cut(t, "The notes say the launch moves to")})
			conv := &agent.Conversation{}
			res := a.Run(t.Context(), conv, "What do the notes say?", func(agent.Event) {})
			if res.Reason != agent.CutOff || res.Text != "The notes say the launch moves to" {
				t.Fatalf("result = %+v, want cut off with the text so far", res)
			}
			if last := conv.Messages[len(conv.Messages)-1]; last.Content != "(cut off: the reply reached the length limit)" {
				t.Fatalf("the conversation ends with %+v, want the cut said", last)
			}
		})
		t.Run(name+"/call", func(t *testing.T) {
			registry, err := tools.NewRegistry(tools.Stubs(0)...)
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(agent.Config{Backend: cut(t, sendMailCall("a@co.com")[:40]), Tools: registry})
			conv := &agent.Conversation{}
			var events []agent.Event
			res := a.Run(t.Context(), conv, "mail a", func(e agent.Event) { events = append(events, e) })
			cutCalls := ofType(events, agent.ToolCallCut)
			if res.Reason != agent.CutOff || len(ofType(events, agent.ToolCallInvalid)) != 0 ||
				len(cutCalls) != 1 || cutCalls[0].Reason != agent.CutOff || len(ofType(events, agent.ToolStarted)) != 0 {
				t.Fatalf("result = %+v, cut calls %+v: want the call cut off, not invalid, and not run", res, cutCalls)
			}
			if responses := conv.Messages[len(conv.Messages)-2]; responses.Content != "<tool_response>\n{\"error\":\"not run: the reply was cut off\"}\n</tool_response>" {
				t.Fatalf("the cut call's response = %q", responses.Content)
			}
		})
	}
}

func TestBackendErrorEndsRun(t *testing.T) {
	server := ollamatest.New(t)
	backend, err := ollama.New(ollama.Config{Host: server.Host(), Model: "llama9:1b"})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: backend})
	var events []agent.Event
	res := a.Run(context.Background(), &agent.Conversation{}, "hi", func(e agent.Event) { events = append(events, e) })
	if res.Reason != agent.Failed || res.Err == nil {
		t.Fatalf("result = %+v, want failed", res)
	}
	errs := ofType(events, agent.Error)
	want := llm.Fix{Do: "run 'ollama pull llama9:1b'", Setting: llm.SettingModel}
	if len(errs) != 1 || errs[0].Error != `model "llama9:1b" is not pulled` || errs[0].Fix == nil || *errs[0].Fix != want {
		t.Fatalf("error events = %+v, want one saying what happened, its fix apart", errs)
	}
}

func TestFollowUpKeepsHistory(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.Reply(
		ollamatest.Reply{Text: sendMailCall("a@co.com")},
		ollamatest.Reply{Text: "Sent to a@co.com."},
		ollamatest.Reply{Text: "It went to a@co.com."},
	)
	conv := &agent.Conversation{}
	f.run(context.Background(), conv, "email a@co.com")
	res, _ := f.run(context.Background(), conv, "Who did you email?")
	if res.Text != "It went to a@co.com." {
		t.Fatalf("follow-up answer = %q", res.Text)
	}
	prompt := f.server.Requests()[2].Prompt
	for _, want := range []string{"email a@co.com", sendMailCall("a@co.com"), "<tool_response>", "Sent to a@co.com.", "Who did you email? /think"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("follow-up prompt lacks %q", want)
		}
	}
	if strings.Count(prompt, "<|im_start|>system") != 1 {
		t.Errorf("follow-up prompt must hold one system prompt:\n%s", prompt)
	}
}

func TestChatModeRunsCallsOllamaParsed(t *testing.T) {
	f := newFixture(t, llm.ModeChat, nil)
	f.server.Reply(
		ollamatest.Reply{Thinking: "Email it.", ToolCalls: []llm.ToolCall{{Name: "send_mail",
			Arguments: json.RawMessage(`{"to":"a@co.com","subject":"Hi","body":"Hello"}`)}}},
		ollamatest.Reply{Text: "Done."},
	)
	res, events := f.run(context.Background(), &agent.Conversation{}, "email a@co.com")
	if res.Reason != agent.Answered || res.Text != "Done." {
		t.Fatalf("result = %+v", res)
	}
	parsed := ofType(events, agent.ToolCallParsed)
	if len(parsed) != 1 || parsed[0].Call.ParsedBy != "ollama" || parsed[0].ParsedBy != "ollama" {
		t.Fatalf("tool_call_parsed = %+v, want one marked as parsed by Ollama", parsed)
	}
	thinking := ofType(events, agent.ThinkingDelta)
	if len(thinking) == 0 || thinking[0].ParsedBy != "ollama" {
		t.Fatalf("thinking = %+v, want it marked as parsed by Ollama", thinking)
	}
	if len(ofType(events, agent.ToolFinished)) != 1 {
		t.Fatal("the call Ollama parsed did not run")
	}
	second := f.server.Requests()[1]
	if second.Path != "/api/chat" || second.Tools != 0 {
		t.Fatalf("second request = %+v, want /api/chat with no tools", second)
	}
	history := second.Messages[len(second.Messages)-2]
	if history.Role != "assistant" || !strings.Contains(history.Content, `"name": "send_mail"`) {
		t.Fatalf("the call must be written back into the history in the trained format: %+v", history)
	}
}

func TestPromptThatOpensThinking(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.server.AddModel("opener", ollamatest.Model{
		Template:     "{{ range .Messages }}{{ .Role }}: {{ .Content }}\n{{ end }}assistant: <think>\n",
		Capabilities: []string{"completion", "thinking"},
	})
	backend, err := ollama.New(ollama.Config{Host: f.server.Host(), Model: "opener"})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: backend})
	f.server.Reply(ollamatest.Reply{Text: "Just say hi.\n</think>\n\nHi!"})
	var events []agent.Event
	res := a.Run(context.Background(), &agent.Conversation{}, "hello", func(e agent.Event) { events = append(events, e) })
	if res.Text != "Hi!" {
		t.Fatalf("answer = %q, want the text after </think>", res.Text)
	}
	var thought strings.Builder
	for _, e := range ofType(events, agent.ThinkingDelta) {
		thought.WriteString(e.Text)
	}
	if thought.String() != "Just say hi.\n" {
		t.Fatalf("thinking = %q", thought.String())
	}
	// Front ends learn it from the event, not from the prompt's text.
	if rounds := ofType(events, agent.RoundStarted); len(rounds) != 1 || !rounds[0].StartsInThinking {
		t.Errorf("round_started = %+v, want it to say the reply starts in thinking", rounds)
	}
}

func TestSystemPrompt(t *testing.T) {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	zone := time.FixedZone("CET", 3600)
	got := agent.SystemPrompt(registry.Tools(), streamparser.Hermes, time.Date(2026, 11, 29, 21, 49, 0, 0, zone))
	for _, want := range []string{
		"Today is Sunday, 2026-11-29. The time is 21:49 in time zone CET (UTC+01:00).",
		"# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{\"type\": \"function\", \"function\": {\"name\":\"send_mail\",",
		"</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q\n%s", want, got)
		}
	}
	lines := strings.Split(got, "\n")
	var toolLines int
	for _, l := range lines {
		if strings.HasPrefix(l, `{"type": "function"`) {
			toolLines++
			var v struct {
				Function struct {
					Name       string          `json:"name"`
					Parameters json.RawMessage `json:"parameters"`
				} `json:"function"`
			}
			if err := json.Unmarshal([]byte(l), &v); err != nil || v.Function.Name == "" || len(v.Function.Parameters) == 0 {
				t.Errorf("tool line is not one JSON object with a name and parameters: %s (%v)", l, err)
			}
		}
	}
	if toolLines != 3 {
		t.Errorf("got %d tool lines, want 3", toolLines)
	}
}

var updatePrompts = flag.Bool("update-prompts", false, "rewrite testdata/system-prompt-*.txt from SystemPrompt")

// Every dialect's system prompt stays byte for byte what models were
// shown before: small models call tools far more reliably when the prompt
// matches their training, and a changed word is a changed experiment.
func TestSystemPromptPerDialect(t *testing.T) {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 21, 49, 0, 0, time.FixedZone("CET", 3600))
	for _, d := range streamparser.Dialects() {
		got := agent.SystemPrompt(registry.Tools(), d, now)
		path := filepath.Join("testdata", "system-prompt-"+d.String()+".txt")
		if *updatePrompts {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("the %s system prompt changed:\n got: %q\nwant: %q", d, got, want)
		}
	}
}

func TestEveryDialectEndToEnd(t *testing.T) {
	args := `{"to": "a@co.com", "subject": "Hi", "body": "Hello"}`
	for _, c := range []struct {
		dialect streamparser.Dialect
		reply   string
		format  string // what the system prompt must teach
	}{
		{streamparser.Hermes, "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": " + args + "}\n</tool_call>", "<tool_call>\n{\"name\": <function-name>"},
		{streamparser.Marker, `>>>CALL_FUNCTION<<< {"name": "send_mail", "arguments": ` + args + `}`, ">>>CALL_FUNCTION<<< {"},
		{streamparser.Pythonic, `<<function>>send_mail(to="a@co.com", subject='Hi', body="Hello")`, "<<function>>function_name("},
		{streamparser.Llama3, `<|python_tag|>{"name": "send_mail", "parameters": ` + args + `}`, `<|python_tag|>{"name": <function-name>, "parameters"`},
		{streamparser.Mistral, `[TOOL_CALLS] [{"name": "send_mail", "arguments": ` + args + `}]`, "[TOOL_CALLS] [{"},
		{streamparser.Fenced, "```json\n{\"name\": \"send_mail\", \"arguments\": " + args + "}\n```", "```json\n{\"name\": <function-name>"},
	} {
		t.Run(c.dialect.String(), func(t *testing.T) {
			f := newFixture(t, llm.ModeRaw, nil, func(cfg *agent.Config) { cfg.Dialect = c.dialect })
			f.server.Reply(ollamatest.Reply{Text: "I will send it.\n" + c.reply}, ollamatest.Reply{Text: "Sent."})
			res, events := f.run(context.Background(), &agent.Conversation{}, "mail a@co.com")
			if res.Reason != agent.Answered || res.Text != "Sent." {
				t.Fatalf("result = %+v", res)
			}
			finished := ofType(events, agent.ToolFinished)
			if len(finished) != 1 || finished[0].Error != "" || string(finished[0].Call.Arguments) != `{"to":"a@co.com","subject":"Hi","body":"Hello"}` {
				t.Fatalf("tool_finished = %+v", finished)
			}
			requests := f.server.Requests()
			if !strings.Contains(requests[0].Prompt, c.format) {
				t.Errorf("the system prompt does not teach the %s format %q", c.dialect, c.format)
			}
			// The model's reply goes back into the history as it wrote it.
			if !strings.Contains(requests[1].Prompt, "I will send it.\n"+c.reply+"<|im_end|>") {
				t.Errorf("round 2 lost the raw call:\n%s", requests[1].Prompt)
			}
			if run := events[0].Run; run.Dialect != c.dialect.String() || run.DialectMarks.Name != run.Dialect {
				t.Errorf("run_started dialect = %q, marks of %q", run.Dialect, run.DialectMarks.Name)
			}
			// The round's start says where the reply starts: the fixture's
			// prompt ends at the assistant's turn, outside thinking.
			if r := ofType(events, agent.RoundStarted); r[0].StartsInThinking {
				t.Errorf("round_started says the reply starts in thinking; the prompt is %q", r[0].Input.Prompt)
			}
		})
	}
}

func TestCutReplyLeavesEveryCallAnswered(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	call := sendMailCall("a@co.com")
	f.server.Reply(ollamatest.Reply{Text: call + " and then", Split: llmtest.SplitEvery(len(call)), CutAfter: 1})
	conv := &agent.Conversation{}
	res, events := f.run(context.Background(), conv, "mail a")
	if res.Reason != agent.Failed {
		t.Fatalf("result = %+v, want failed", res)
	}
	if n := len(ofType(events, agent.ToolStarted)); n != 0 {
		t.Fatalf("%d tools ran after the reply was cut off", n)
	}
	n := len(conv.Messages)
	responses, last := conv.Messages[n-2], conv.Messages[n-1]
	if responses.Role != llm.RoleUser || responses.Content != "<tool_response>\n{\"error\":\"not run: the reply was cut off\"}\n</tool_response>" {
		t.Fatalf("the cut-off call has no response in the history, or one in Go's words: %+v", responses)
	}
	if last.Role != llm.RoleAssistant || last.Content != "(stopped by an error)" {
		t.Fatalf("last message = %+v, want the assistant's turn closed", last)
	}
}

func TestCallsOfOneReplyAreNumberedOnce(t *testing.T) {
	f := newFixture(t, llm.ModeChat, nil)
	f.server.Reply(
		ollamatest.Reply{Text: sendMailCall("a@co.com"), ToolCalls: []llm.ToolCall{{Name: "send_mail",
			Arguments: json.RawMessage(`{"to":"b@co.com","subject":"Hi","body":"Hello"}`)}}},
		ollamatest.Reply{Text: "Both sent."},
	)
	_, events := f.run(context.Background(), &agent.Conversation{}, "mail a and b")
	var indexes []int
	for _, e := range ofType(events, agent.ToolCallParsed) {
		indexes = append(indexes, e.Call.Index)
	}
	if fmt.Sprint(indexes) != "[0 1]" {
		t.Fatalf("call indexes = %v, want [0 1] whoever parsed them", indexes)
	}
}

func TestKeptInputDoesNotChangeWithTheConversation(t *testing.T) {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	newAgent := func(d streamparser.Dialect) *agent.Agent {
		return agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry, Dialect: d})
	}
	conv := &agent.Conversation{}
	newAgent(streamparser.Hermes).Run(context.Background(), conv, "hello", func(agent.Event) {})
	var kept []agent.Event
	newAgent(streamparser.Hermes).Run(context.Background(), conv, "Send an email to john@example.com about the launch",
		func(e agent.Event) { kept = append(kept, e) })
	newAgent(streamparser.Marker).Run(context.Background(), conv, "hello again", func(agent.Event) {})
	rounds := ofType(kept, agent.RoundStarted)
	if len(rounds) != 2 {
		t.Fatalf("the email run took %d rounds, want 2", len(rounds))
	}
	system := rounds[1].Input.Messages[0].Content
	if !strings.Contains(system, "<tool_call>") || strings.Contains(system, ">>>CALL_FUNCTION<<<") {
		t.Fatalf("the first run's recorded system prompt changed with the follow-up:\n%s", system)
	}
}

// Qwen3-Coder writes values bare: the tools' schemas type them, so a
// number reaches the tool as a number and a string stays a string.
func TestQwen3CoderValuesTypedBySchema(t *testing.T) {
	var got []string
	repeat := tools.Func("repeat", "Repeats a word.",
		json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"},"times":{"type":"integer"}},"required":["word","times"]}`),
		func(_ context.Context, in struct {
			Word  string `json:"word"`
			Times int    `json:"times"`
		}) (string, error) {
			got = append(got, strings.Repeat(in.Word, in.Times))
			return "ok", nil
		})
	f := newFixture(t, llm.ModeRaw, []tools.Tool{repeat}, func(cfg *agent.Config) { cfg.Dialect = streamparser.Qwen3Coder })
	call := "<tool_call>\n<function=repeat>\n<parameter=word>\n42\n</parameter>\n<parameter=times>\n3\n</parameter>\n</function>\n</tool_call>"
	f.server.Reply(ollamatest.Reply{Text: call}, ollamatest.Reply{Text: "Done."})
	res, events := f.run(context.Background(), &agent.Conversation{}, "repeat 42 three times")
	if res.Reason != agent.Answered || len(got) != 1 || got[0] != "424242" {
		t.Fatalf("result %+v, the tool got %q", res, got)
	}
	parsed := ofType(events, agent.ToolCallParsed)
	if len(parsed) != 1 || string(parsed[0].Call.Arguments) != `{"word":"42","times":3}` {
		t.Fatalf("tool_call_parsed = %+v", parsed)
	}
	if !strings.Contains(f.server.Requests()[0].Prompt, "<tool_call>\n<function=example_function_name>") {
		t.Error("the system prompt does not teach Qwen3-Coder's format")
	}
}

// A reply that ends inside thinking after a call marker says that the
// call was not run, once, after the round's text; one whose thinking
// closes does not.
func TestCallInThinkingIsReported(t *testing.T) {
	for reply, want := range map[string]int{
		"<think>I'll call it.\n" + sendMailCall("a@co.com"):              1,
		"<think>" + sendMailCall("a@co.com") + "</think>No call needed.": 0,
	} {
		f := newFixture(t, llm.ModeRaw, nil)
		f.server.Reply(ollamatest.Reply{Text: reply})
		res, events := f.run(context.Background(), &agent.Conversation{}, "mail a@co.com")
		noted := ofType(events, agent.ToolCallInThinking)
		if len(noted) != want || res.Reason != agent.Answered || len(ofType(events, agent.ToolStarted)) != 0 {
			t.Fatalf("%q: %d tool_call_in_thinking events, want %d; result %+v", reply, len(noted), want, res)
		}
		if want == 1 && (noted[0].Text != "<tool_call>" || noted[0].Round != 1) {
			t.Errorf("tool_call_in_thinking = %+v, want the marker in round 1", noted[0])
		}
	}
}

// Token events say where their text stands as the parser read it, one
// region each, so that a front end tints raw output without a parser of
// its own; a chunk the parser holds back whole comes as pending alone.
func TestTokensSayTheirRegion(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	parts := []struct {
		region streamparser.Region
		text   string
	}{
		{streamparser.TextRegion, "Ça va. "},
		{streamparser.ThinkRegion, "<think>plan 🙂</think>"},
		{streamparser.TextRegion, "\n"},
		{streamparser.CallRegion, sendMailCall("a@b.co")},
	}
	var reply strings.Builder
	for _, p := range parts {
		reply.WriteString(p.text)
	}
	runes := func(s string) []string { return strings.Split(s, "") } // one chunk a character
	f.server.Reply(ollamatest.Reply{Text: reply.String(), Split: runes}, ollamatest.Reply{Text: "Sent."})
	_, events := f.run(context.Background(), &agent.Conversation{}, "mail a@b.co")

	var got []string
	heldWhole := false
	for _, e := range ofType(events, agent.Token) {
		if e.Round != 1 {
			continue
		}
		if e.Text == "" {
			heldWhole = heldWhole || e.Pending == "<" && e.Region == streamparser.TextRegion
			continue
		}
		if n := len(got); n > 0 && strings.HasPrefix(got[n-1], string(e.Region)+":") {
			got[n-1] += e.Text
		} else {
			got = append(got, string(e.Region)+":"+e.Text)
		}
	}
	var want []string
	for _, p := range parts {
		want = append(want, string(p.region)+":"+p.text)
	}
	if !slices.Equal(got, want) {
		t.Errorf("round 1's tokens by region:\n got %q\nwant %q", got, want)
	}
	if !heldWhole {
		t.Error("no token event shows the \"<\" of a tag held back alone")
	}
}
