package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/streamparser"
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
			return agent.Edit{Error: ptr("mailbox full")}
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
		return agent.Edit{Error: ptr("ignored: the run was stopped")}
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
		{agent.Pause{At: agent.AtResponse}, agent.Edit{Error: &text}, "error"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Error: &text}, ""},
		// An empty error is sent, not absent: the tool must not run.
		{agent.Pause{At: agent.AtCall}, agent.Edit{Error: ptr("")}, "error"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Error: ptr(" \n")}, "error"},
		// Error wins over Result, as documented.
		{agent.Pause{At: agent.AtCall}, agent.Edit{Error: &text, Result: &text}, ""},
		// A skip excludes every change of the call.
		{agent.Pause{At: agent.AtCall}, agent.Edit{Skip: true}, ""},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Skip: true, Result: &text}, "skip"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Skip: true, Error: &text}, "skip"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Skip: true, Arguments: json.RawMessage(`{}`)}, "skip"},
		// So does a faked outcome: the tool does not run with the arguments.
		{agent.Pause{At: agent.AtCall}, agent.Edit{Result: &text, Arguments: json.RawMessage(`{}`)}, "arguments"},
		{agent.Pause{At: agent.AtCall}, agent.Edit{Error: &text, Arguments: json.RawMessage(`{}`)}, "arguments"},
	}
	for _, c := range cases {
		err := c.p.Check(c.e)
		ee, _ := err.(*agent.EditError)
		if (c.field == "") != (err == nil) || ee != nil && ee.Field != c.field {
			t.Errorf("Check(%+v) at %s = %v, want a problem with %q", c.e, c.p.At, err, c.field)
		}
	}
}

// The refusals name what is wrong: both fields of a conflict, and what an
// empty error lacks.
func TestPauseCheckSaysWhy(t *testing.T) {
	text := "x"
	at := agent.Pause{At: agent.AtCall}
	for _, c := range []struct {
		e    agent.Edit
		want string
	}{
		{agent.Edit{Skip: true, Result: &text}, `"skip" cannot go with "result"`},
		{agent.Edit{Skip: true, Error: &text}, `"skip" cannot go with "error"`},
		{agent.Edit{Skip: true, Arguments: json.RawMessage(`{"to": "a"}`)}, `"skip" cannot go with "arguments"`},
		{agent.Edit{Error: ptr("")}, `"error" needs the error's text`},
		{agent.Edit{Result: &text, Arguments: json.RawMessage(`{"to": "a"}`)}, `"arguments" cannot go with a faked result or error`},
	} {
		if err := at.Check(c.e); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%+v) = %v, want it to say %q", c.e, err, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

// mail writes a send_mail call to whom, its arguments in the order the
// tool lists them, as the dialect's own writer writes it.
func mail(d streamparser.Dialect, to ...string) string {
	var drafts []streamparser.Draft
	for _, who := range to {
		draft, err := streamparser.NewDraft("send_mail", json.RawMessage(`{"to": "`+who+`", "subject": "Standup", "body": "See you at 9."}`))
		if err != nil {
			panic(err)
		}
		drafts = append(drafts, draft)
	}
	var b strings.Builder
	d.WriteCalls(&b, drafts)
	return b.String()
}

// sendTo answers the pause of each call named in to by sending its mail
// to the address given; body, if given, replaces the body.
func sendTo(to map[int]string, body ...string) stepperFunc {
	return func(_ context.Context, p agent.Pause) agent.Edit {
		if p.At != agent.AtCall || to[p.Call.Index] == "" {
			return agent.Edit{}
		}
		args, _ := json.Marshal(struct {
			To      string `json:"to"`
			Subject string `json:"subject"`
			Body    string `json:"body"`
		}{to[p.Call.Index], "Standup", append(body, "See you at 9.")[0]})
		return agent.Edit{Arguments: args}
	}
}

// An edited call takes the place of the model's in the conversation,
// written in the run's dialect, so that round 2 reads back the call its
// response answers, in raw and in chat mode.
func TestStepEditedArgumentsAreWrittenBack(t *testing.T) {
	cases := []struct {
		name    string
		dialect streamparser.Dialect
		reply   string // the model's
		edit    int    // the call edited
		want    string // the reply as round 2 reads it
	}{
		{"hermes", streamparser.Hermes, mail(streamparser.Hermes, "ann@co.com"), 0, mail(streamparser.Hermes, "bea@co.com")},
		// The model's own layout around the call stays.
		{"hermes, the model's spacing", streamparser.Hermes,
			"Sending.\n<tool_call>{\"name\":\"send_mail\",\"arguments\":{\"to\":\"ann@co.com\",\"subject\":\"Standup\",\"body\":\"See you at 9.\"}}</tool_call>", 0,
			"Sending.\n<tool_call>{\"name\": \"send_mail\", \"arguments\": {\"to\": \"bea@co.com\", \"subject\": \"Standup\", \"body\": \"See you at 9.\"}}</tool_call>"},
		{"pythonic", streamparser.Pythonic, `<<function>>send_mail(to='ann@co.com', subject='Standup', body='See you at 9.')`, 0, mail(streamparser.Pythonic, "bea@co.com")},
		{"qwen3coder", streamparser.Qwen3Coder, mail(streamparser.Qwen3Coder, "ann@co.com"), 0, mail(streamparser.Qwen3Coder, "bea@co.com")},
		// A call in a list stays in its list, beside the model's other call.
		{"mistral list, second call", streamparser.Mistral, mail(streamparser.Mistral, "cy@co.com", "ann@co.com"), 1, mail(streamparser.Mistral, "cy@co.com", "bea@co.com")},
		// Mistral's newer form cannot hold the list's payload: the call is written whole.
		{"mistral name[ARGS]", streamparser.Mistral, `[TOOL_CALLS]send_mail[ARGS]{"to": "ann@co.com", "subject": "Standup", "body": "See you at 9."}`, 0, mail(streamparser.Mistral, "bea@co.com")},
	}
	for _, c := range cases {
		for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
			t.Run(c.name+"/"+string(mode), func(t *testing.T) {
				f := newFixture(t, mode, nil, func(cfg *agent.Config) { cfg.Dialect = c.dialect })
				f.agent = f.agent.Stepping(sendTo(map[int]string{c.edit: "bea@co.com"}))
				f.server.Reply(ollamatest.Reply{Text: c.reply}, ollamatest.Reply{Text: "Sent."})
				res, events := f.run(context.Background(), &agent.Conversation{}, "mail the team")
				if res.Reason != agent.Answered {
					t.Fatalf("result %+v", res)
				}
				assistant, original := readBack(t, f.server.Requests()[1], "ann@co.com")
				if assistant != c.want || original {
					t.Errorf("round 2 reads the reply as\n%s\nwant\n%s", assistant, c.want)
				}
				edited := ofType(events, agent.Edited)
				if len(edited) != 1 || edited[0].Change.NotWritten != "" || !strings.Contains(string(edited[0].Change.Was), "ann@co.com") ||
					!strings.Contains(string(edited[0].Change.Now), "bea@co.com") {
					t.Errorf("edited = %+v, want what was there, what replaced it, and written", edited)
				}
			})
		}
	}
}

// readBack returns the model's reply as a round-2 request gives it back
// (in raw mode its turn in the prompt, in chat mode its message), and
// whether the request holds text anywhere.
func readBack(t *testing.T, req ollamatest.Request, text string) (reply string, holds bool) {
	t.Helper()
	if req.Raw {
		_, turn, ok := strings.Cut(req.Prompt, "<|im_start|>assistant\n")
		if !ok {
			t.Fatalf("no assistant turn in the prompt:\n%s", req.Prompt)
		}
		reply, _, _ = strings.Cut(turn, "<|im_end|>")
		return reply, strings.Contains(req.Prompt, text)
	}
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			reply = m.Content
		}
		holds = holds || strings.Contains(m.Content, text)
	}
	return reply, holds
}

// Two calls of one reply edited: each is written where the model wrote
// it, whatever the other's new length.
func TestStepEditedCallsOfOneReply(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.agent = f.agent.Stepping(sendTo(map[int]string{0: "beatrice@co.com", 1: "di@co.com"}))
	f.server.Reply(ollamatest.Reply{Text: "Two mails.\n" + mail(streamparser.Hermes, "ann@co.com", "cy@co.com") + "\nDone."}, ollamatest.Reply{Text: "Sent."})
	if res, _ := f.run(context.Background(), &agent.Conversation{}, "mail the team"); res.Reason != agent.Answered {
		t.Fatalf("result %+v", res)
	}
	want := "Two mails.\n" + mail(streamparser.Hermes, "beatrice@co.com", "di@co.com") + "\nDone."
	if got, _ := readBack(t, f.server.Requests()[1], ""); got != want {
		t.Errorf("round 2 reads the reply as\n%s\nwant\n%s", got, want)
	}
}

// A call Ollama's own parser read is written back as such calls are kept.
func TestStepEditedOllamaCallIsWrittenBack(t *testing.T) {
	f := newFixture(t, llm.ModeChat, nil)
	f.agent = f.agent.Stepping(sendTo(map[int]string{0: "bea@co.com"}))
	f.server.Reply(
		ollamatest.Reply{ToolCalls: []llm.ToolCall{{Name: "send_mail", Arguments: json.RawMessage(`{"to":"ann@co.com","subject":"Standup","body":"See you at 9."}`)}}},
		ollamatest.Reply{Text: "Sent."},
	)
	if res, _ := f.run(context.Background(), &agent.Conversation{}, "mail the team"); res.Reason != agent.Answered {
		t.Fatalf("result %+v", res)
	}
	want := "<tool_call>\n" + `{"name": "send_mail", "arguments": {"to":"bea@co.com","subject":"Standup","body":"See you at 9."}}` + "\n</tool_call>"
	if got, original := readBack(t, f.server.Requests()[1], "ann@co.com"); got != want || original {
		t.Errorf("round 2 reads the reply as\n%s\nwant\n%s", got, want)
	}
}

// A Qwen3-Coder value cannot hold </tool_call>: the edited call would
// not read back as it ran, so the conversation keeps the model's call,
// and the edited event says why.
func TestStepEditNotWrittenKeepsTheModelsCall(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil, func(cfg *agent.Config) { cfg.Dialect = streamparser.Qwen3Coder })
	f.agent = f.agent.Stepping(sendTo(map[int]string{0: "bea@co.com"}, "Ends with </tool_call> here."))
	reply := mail(streamparser.Qwen3Coder, "ann@co.com")
	f.server.Reply(ollamatest.Reply{Text: reply}, ollamatest.Reply{Text: "Sent."})
	res, events := f.run(context.Background(), &agent.Conversation{}, "mail the team")
	if res.Reason != agent.Answered {
		t.Fatalf("result %+v", res)
	}
	if got, _ := readBack(t, f.server.Requests()[1], ""); got != reply {
		t.Errorf("round 2 reads the reply as\n%s\nwant the model's own\n%s", got, reply)
	}
	finished := ofType(events, agent.ToolFinished)
	if len(finished) != 1 || !strings.Contains(string(finished[0].Call.Arguments), "bea@co.com") {
		t.Fatalf("tool_finished = %+v, want the edited call run", finished)
	}
	edited := ofType(events, agent.Edited)
	if len(edited) != 1 || !strings.Contains(edited[0].Change.NotWritten, "qwen3coder") {
		t.Errorf("edited = %+v, want why the call was not written", edited)
	}
}

// Arguments "edited" into the same values leave the model's text as it
// wrote it, its own spacing included.
func TestStepUnchangedArgumentsKeepTheModelsText(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil)
	f.agent = f.agent.Stepping(sendTo(map[int]string{0: "ann@co.com"}))
	reply := `<tool_call>{"name":"send_mail","arguments":{"to":"ann@co.com","subject":"Standup","body":"See you at 9."}}</tool_call>`
	f.server.Reply(ollamatest.Reply{Text: reply}, ollamatest.Reply{Text: "Sent."})
	if res, _ := f.run(context.Background(), &agent.Conversation{}, "mail the team"); res.Reason != agent.Answered {
		t.Fatalf("result %+v", res)
	}
	if got, _ := readBack(t, f.server.Requests()[1], ""); got != reply {
		t.Errorf("round 2 reads the reply as\n%s\nwant the model's own\n%s", got, reply)
	}
}

// A reply with a call toolscope parsed beside one Ollama parsed (written
// into the text as such): the edited call is written back, the other
// stays as it was.
func TestStepEditedCallBesideABackendsCall(t *testing.T) {
	f := newFixture(t, llm.ModeChat, nil)
	f.agent = f.agent.Stepping(sendTo(map[int]string{0: "bea@co.com"}))
	f.server.Reply(ollamatest.Reply{Text: mail(streamparser.Hermes, "ann@co.com"),
		ToolCalls: []llm.ToolCall{{Name: "send_mail", Arguments: json.RawMessage(`{"to":"cy@co.com","subject":"Standup","body":"x"}`)}}},
		ollamatest.Reply{Text: "Sent."})
	_, events := f.run(context.Background(), &agent.Conversation{}, "mail the team")
	if edited := ofType(events, agent.Edited); len(edited) != 1 || edited[0].Change.NotWritten != "" {
		t.Fatalf("edited = %+v, want the edit written back", edited)
	}
	reply, original := readBack(t, f.server.Requests()[1], "ann@co.com")
	if original || !strings.Contains(reply, "bea@co.com") || !strings.Contains(reply, "cy@co.com") {
		t.Errorf("round 2 reads the reply as\n%s\nwant bea's call written back beside cy's", reply)
	}
}

// Numbers are compared as written: an edit that a float64 would not see
// is written back.
func TestStepEditedBigNumberIsWrittenBack(t *testing.T) {
	const was, now = "12345678901234567890", "12345678901234567891"
	f := newFixture(t, llm.ModeRaw, nil)
	f.agent = f.agent.Stepping(stepperFunc(func(_ context.Context, p agent.Pause) agent.Edit {
		if p.At != agent.AtCall {
			return agent.Edit{}
		}
		return agent.Edit{Arguments: json.RawMessage(`{"to":"ann@co.com","subject":"Standup","body":"Hi","n":` + now + `}`)}
	}))
	f.server.Reply(ollamatest.Reply{Text: `<tool_call>{"name":"send_mail","arguments":{"to":"ann@co.com","subject":"Standup","body":"Hi","n":` + was + `}}</tool_call>`},
		ollamatest.Reply{Text: "Sent."})
	f.run(context.Background(), &agent.Conversation{}, "mail")
	if reply, original := readBack(t, f.server.Requests()[1], was); original || !strings.Contains(reply, now) {
		t.Errorf("round 2 reads the reply as\n%s\nwant %s in place of %s", reply, now, was)
	}
}
