package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

const askForm = `{"type": "object", "properties": {"name": {"type": "string"}, "guests": {"type": "integer", "minimum": 1, "default": 2}}, "required": ["name"]}`

// asking is a tool that asks its server's questions through the call's
// Asker, as an MCP server's tool does, and returns what came back.
func asking(do func(ctx context.Context, a tools.Asker) (string, error)) tools.Tool {
	return tools.Func("ask", "asks things", json.RawMessage(`{"type": "object", "properties": {}}`),
		func(ctx context.Context, _ struct{}) (string, error) {
			a := tools.AskerOf(ctx)
			if a == nil {
				return "", errorText("no asker in the call's context")
			}
			return do(ctx, a)
		})
}

type errorText string

func (e errorText) Error() string { return string(e) }

func elicitForm(ctx context.Context, a tools.Asker) (string, error) {
	r, err := a.Elicit(ctx, tools.Elicitation{Server: "s", Mode: tools.ElicitForm, Message: "Who?", Schema: json.RawMessage(askForm)})
	if err != nil {
		return "", err
	}
	content, _ := json.Marshal(r.Content)
	return r.Action + " " + string(content), nil
}

// person answers asks with the replies queued, and keeps the asks.
type person struct {
	replies []agent.Reply
	asked   []agent.Ask
}

func (p *person) Answer(_ context.Context, a agent.Ask) agent.Reply {
	p.asked = append(p.asked, a)
	r := p.replies[0]
	p.replies = p.replies[1:]
	return r
}

// runAsking runs one round that calls the tool ask, and a second that
// answers, and returns the events.
func runAsking(t *testing.T, tool tools.Tool, cfg agent.Config, replies ...[]string) []agent.Event {
	t.Helper()
	registry, err := tools.NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	script := append([][]string{{"<tool_call>\n{\"name\": \"ask\", \"arguments\": {}}\n</tool_call>"}}, replies...)
	script = append(script, []string{"Done."})
	cfg.Backend, cfg.Tools = &scripted{replies: script}, registry
	var events []agent.Event
	agent.New(cfg).Run(t.Context(), &agent.Conversation{}, "Book a table", func(e agent.Event) { events = append(events, e) })
	return events
}

func result(t *testing.T, events []agent.Event) string {
	t.Helper()
	for _, e := range events {
		if e.Type == agent.ToolFinished {
			if e.Error != "" {
				return "error: " + e.Error
			}
			return e.Result
		}
	}
	t.Fatal("no tool_finished")
	return ""
}

// Every elicitation policy answers as --elicit says, and the events show
// the question and the answer between the call's start and end.
func TestElicitationPolicies(t *testing.T) {
	cases := []struct {
		name     string
		cfg      agent.Config
		want     string
		note     string
		waiting  bool
		answerer *person
	}{
		{name: "ask", cfg: agent.Config{}, answerer: &person{replies: []agent.Reply{{Action: tools.Accept, Content: map[string]any{"name": "Ada"}}}},
			want: `accept {"name":"Ada"}`, waiting: true},
		{name: "ask, declined", cfg: agent.Config{}, answerer: &person{replies: []agent.Reply{{Action: tools.Decline}}}, want: "decline null", waiting: true},
		{name: "ask, an answer that does not fit", cfg: agent.Config{}, answerer: &person{replies: []agent.Reply{{Action: tools.Accept, Content: map[string]any{"guests": 0}}}},
			want: "cancel null", note: "did not fit", waiting: true},
		{name: "ask with nobody to ask", cfg: agent.Config{}, want: "decline null", note: "nobody to ask here (toolscope run)"},
		{name: "decline", cfg: agent.Config{Asks: agent.Asks{Elicit: agent.ElicitDecline}}, answerer: &person{}, want: "decline null", note: "--elicit decline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.answerer != nil {
				c.cfg.Answerer = c.answerer
			}
			events := runAsking(t, asking(elicitForm), c.cfg)
			if got := result(t, events); got != c.want {
				t.Errorf("the server got %q, want %q", got, c.want)
			}
			asked, answered := ofType(events, agent.ElicitationRequested), ofType(events, agent.ElicitationAnswered)
			if len(asked) != 1 || len(answered) != 1 {
				t.Fatalf("%d asked and %d answered events", len(asked), len(answered))
			}
			if a := asked[0].Ask; a.ID != 1 || a.Kind != agent.AskElicitation || a.Call != 0 || a.Waiting != c.waiting || a.Elicitation.Message != "Who?" {
				t.Errorf("ask = %+v", a)
			}
			if !strings.Contains(answered[0].Reply.Note, c.note) {
				t.Errorf("note %q, want it to say %q", answered[0].Reply.Note, c.note)
			}
			if got := strings.Join(types(typesOf(events)), " "); !strings.Contains(got, "tool_started elicitation_requested elicitation_answered tool_finished") {
				t.Errorf("events %s: the ask is not inside the call", got)
			}
		})
	}
}

func typesOf(events []agent.Event) []agent.Type {
	var ts []agent.Type
	for _, e := range events {
		ts = append(ts, e.Type)
	}
	return ts
}

// --elicit defaults fills a form with its defaults, and declines one with
// a required field that has none, saying which.
func TestElicitDefaults(t *testing.T) {
	cfg := agent.Config{Asks: agent.Asks{Elicit: agent.ElicitDefaults}}
	defaulted := func(ctx context.Context, a tools.Asker) (string, error) {
		r, err := a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitForm, Schema: json.RawMessage(
			`{"type": "object", "properties": {"units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}, "note": {"type": "string"}}, "required": ["units"]}`)})
		content, _ := json.Marshal(r.Content)
		return r.Action + " " + string(content), err
	}
	if got := result(t, runAsking(t, asking(defaulted), cfg)); got != `accept {"units":"metric"}` {
		t.Errorf("defaults: the server got %q", got)
	}
	events := runAsking(t, asking(elicitForm), cfg)
	if got := result(t, events); got != "decline null" {
		t.Errorf("a required field without a default: the server got %q", got)
	}
	if note := ofType(events, agent.ElicitationAnswered)[0].Reply.Note; !strings.Contains(note, `required field "name", which has no default`) {
		t.Errorf("note = %q", note)
	}
}

func sampleOnce(ctx context.Context, a tools.Asker) (string, error) {
	r, err := a.Sample(ctx, tools.SamplingRequest{Server: "s", SystemPrompt: "Be brief.", MaxTokens: 5000,
		Messages: []tools.SamplingMessage{{Role: "user", Text: "Summarize: the cat sat."}}})
	if err != nil {
		return "", err
	}
	return r.Text + " / " + r.Model + " / " + r.StopReason, nil
}

// A sampling request is answered by the run's own model, in a nested
// round: its input is the server's system prompt and messages, its
// tokens stream, its answer goes back, thinking left out.
func TestSamplingAnsweredByTheRunsModel(t *testing.T) {
	events := runAsking(t, asking(sampleOnce), agent.Config{Asks: agent.Asks{SamplingMaxTokens: 64}},
		[]string{"<think>short</think>", "A cat ", "sat."})
	if got := result(t, events); got != "A cat sat. / test-model / endTurn" {
		t.Errorf("the server got %q", got)
	}
	req := ofType(events, agent.SamplingRequested)
	if len(req) != 1 {
		t.Fatalf("%d sampling_requested events", len(req))
	}
	in := req[0].Input
	if len(in.Messages) != 2 || in.Messages[0] != (llm.Message{Role: llm.RoleSystem, Content: "Be brief."}) || in.Messages[1].Content != "Summarize: the cat sat." {
		t.Errorf("the model read %+v", in.Messages)
	}
	if s := req[0].Ask.Sampling; s.MaxTokens != 5000 || s.GrantedTokens != 64 {
		t.Errorf("asked %d tokens, granted %d; want 5000 capped to 64", s.MaxTokens, s.GrantedTokens)
	}
	var raw strings.Builder
	for _, e := range ofType(events, agent.SamplingToken) {
		raw.WriteString(e.Text)
	}
	if raw.String() != "<think>short</think>A cat sat." {
		t.Errorf("raw output %q", raw.String())
	}
	if got := ofType(events, agent.SamplingFinished)[0].Ask.Sampling.Answer; got != "A cat sat." {
		t.Errorf("answer %q", got)
	}
	if got := strings.Join(types(typesOf(events)), " "); !strings.Contains(got, "tool_started sampling_requested sampling_token") ||
		!strings.Contains(got, "sampling_finished sampling_answered tool_finished") {
		t.Errorf("events %s: the sampling round is not inside the call", got)
	}
}

// Past --sampling-per-call, the server is refused, saying why, and the
// model is not asked.
func TestSamplingPerCallLimit(t *testing.T) {
	twice := func(ctx context.Context, a tools.Asker) (string, error) {
		if _, err := sampleOnce(ctx, a); err != nil {
			return "", err
		}
		return sampleOnce(ctx, a)
	}
	events := runAsking(t, asking(twice), agent.Config{Asks: agent.Asks{SamplingPerCall: 1}}, []string{"One."})
	if got := result(t, events); !strings.Contains(got, "a tool call may make 1 sampling requests (--sampling-per-call), and this is number 2") {
		t.Errorf("the server got %q", got)
	}
	answered := ofType(events, agent.SamplingAnswered)
	if len(answered) != 2 || answered[1].Error == "" || answered[1].Ask.ID != 2 {
		t.Errorf("sampling_answered events: %+v", answered)
	}
}

// In step mode the person approves the model's answer, or edits it, or
// declines it, before it goes back.
func TestSamplingApprovedInStepMode(t *testing.T) {
	edited := "A cat, sitting."
	cases := []struct {
		reply agent.Reply
		want  string
	}{
		{agent.Reply{Action: tools.Accept}, "A cat sat. / test-model / endTurn"},
		{agent.Reply{Action: tools.Accept, Answer: &edited}, "A cat, sitting. / test-model / endTurn"},
		{agent.Reply{Action: tools.Decline}, "error: declined by the user"},
	}
	for _, c := range cases {
		p := &person{replies: []agent.Reply{c.reply}}
		events := runAsking(t, asking(sampleOnce), agent.Config{Answerer: p, Stepper: goOn{}}, []string{"A cat sat."})
		if got := result(t, events); got != c.want {
			t.Errorf("%+v: the server got %q, want %q", c.reply, got, c.want)
		}
		if len(p.asked) != 1 || p.asked[0].Sampling.Answer != "A cat sat." || !p.asked[0].Waiting {
			t.Errorf("the person was asked %+v", p.asked)
		}
	}
}

// goOn is a Stepper that goes on at every pause.
type goOn struct{}

func (goOn) Step(context.Context, agent.Pause) agent.Edit { return agent.Edit{} }

// An ask that comes once the call is over is refused: nothing of it shows
// after the call's end.
func TestAskAfterTheCallIsRefused(t *testing.T) {
	kept := make(chan tools.Asker, 1)
	keep := func(_ context.Context, a tools.Asker) (string, error) { kept <- a; return "ok", nil }
	events := runAsking(t, asking(keep), agent.Config{Asks: agent.Asks{Elicit: agent.ElicitDefaults}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := (<-kept).Elicit(ctx, tools.Elicitation{Mode: tools.ElicitForm}); err == nil || !strings.Contains(err.Error(), "is over") {
		t.Errorf("an ask after the call: %v", err)
	}
	if n := len(ofType(events, agent.ElicitationRequested)); n != 0 {
		t.Errorf("%d asks shown", n)
	}
}

// slowPerson answers after the tool timeout has passed several times
// over: the time a person takes is not the tool's.
type slowPerson struct{ after time.Duration }

func (p slowPerson) Answer(ctx context.Context, _ agent.Ask) agent.Reply {
	select {
	case <-time.After(p.after):
		return agent.Reply{Action: tools.Accept, Content: map[string]any{"name": "Ada"}}
	case <-ctx.Done():
		return agent.Reply{Action: tools.Cancel}
	}
}

// The tool timeout stands still while the person answers an elicitation,
// and runs again once they have: a tool that then hangs still times out.
func TestToolTimeoutHeldWhileThePersonAnswers(t *testing.T) {
	// The person takes twice the tool's limit; the limit is long enough
	// for the tool's own work on a busy machine.
	cfg := agent.Config{ToolTimeout: 500 * time.Millisecond, Answerer: slowPerson{after: time.Second}}
	if got := result(t, runAsking(t, asking(elicitForm), cfg)); got != `accept {"name":"Ada"}` {
		t.Errorf("answered after the tool timeout: the server got %q", got)
	}
	hangAfter := func(ctx context.Context, a tools.Asker) (string, error) {
		if _, err := elicitForm(ctx, a); err != nil {
			return "", err
		}
		<-ctx.Done()
		return "", ctx.Err()
	}
	if got := result(t, runAsking(t, asking(hangAfter), cfg)); got != "error: tool ask did not answer within 500ms" {
		t.Errorf("a tool hanging after the answer: %q", got)
	}
}

// gate is an Answerer that says when it is asked, and answers each ask
// only once told to, whatever its context says.
type gate struct {
	asked   chan agent.Ask
	replies chan agent.Reply
}

func newGate() *gate {
	return &gate{asked: make(chan agent.Ask, 4), replies: make(chan agent.Reply, 4)}
}

func (g *gate) Answer(_ context.Context, a agent.Ask) agent.Reply {
	g.asked <- a
	return <-g.replies
}

// A URL elicitation's completion comes through while another ask waits
// on the person: the server's notifications are not held up by it.
func TestElicitationCompletedDuringAnotherAsk(t *testing.T) {
	g := newGate()
	g.replies <- agent.Reply{Action: tools.Accept}
	both := func(ctx context.Context, a tools.Asker) (string, error) {
		if _, err := a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitURL, URL: "https://example.com/sign", ElicitationID: "e1", Message: "Sign in"}); err != nil {
			return "", err
		}
		second := make(chan tools.ElicitReply)
		go func() { r, _ := elicitForm2(ctx, a); second <- r }()
		<-g.asked // the first
		<-g.asked // the second waits on the person now
		a.ElicitationCompleted("e1")
		g.replies <- agent.Reply{Action: tools.Decline}
		return (<-second).Action, nil
	}
	events := runAsking(t, asking(both), agent.Config{Answerer: g})
	if got := result(t, events); got != tools.Decline {
		t.Errorf("the server got %q", got)
	}
	if got := strings.Join(types(typesOf(events)), " "); !strings.Contains(got, "elicitation_requested elicitation_completed elicitation_answered") {
		t.Errorf("events %s: the completion did not come while the second ask waited", got)
	}
}

func elicitForm2(ctx context.Context, a tools.Asker) (tools.ElicitReply, error) {
	return a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitForm, Message: "Who?", Schema: json.RawMessage(askForm)})
}

// A run stopped while an Answerer that ignores its context holds an ask
// ends all the same; nothing of that ask shows after the call's end.
func TestStopWhileAnAnswererHangs(t *testing.T) {
	g := newGate()
	defer close(g.replies) // lets the Answerer left behind go
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-g.asked; cancel() }()
	registry, err := tools.NewRegistry(asking(elicitForm))
	if err != nil {
		t.Fatal(err)
	}
	var events []agent.Event
	res := agent.New(agent.Config{Backend: &scripted{replies: [][]string{{"<tool_call>\n{\"name\": \"ask\", \"arguments\": {}}\n</tool_call>"}}},
		Tools: registry, Answerer: g}).Run(ctx, &agent.Conversation{}, "Book a table", func(e agent.Event) { events = append(events, e) })
	if res.Reason != agent.Cancelled {
		t.Errorf("the run ended %s", res.Reason)
	}
	if got := strings.Join(types(typesOf(events)), " "); !strings.Contains(got, "elicitation_requested tool_finished") {
		t.Errorf("events %s", got)
	}
}

// Only the *_requested event of an ask carries the server's request: the
// later ones carry the answer alone, so a big request is sent once.
func TestOnlyTheRequestedEventCarriesTheRequest(t *testing.T) {
	p := &person{replies: []agent.Reply{{Action: tools.Accept, Content: map[string]any{"name": "Ada"}}}}
	events := runAsking(t, asking(elicitForm), agent.Config{Answerer: p})
	if e := ofType(events, agent.ElicitationRequested)[0]; e.Ask.Elicitation == nil {
		t.Error("elicitation_requested has no elicitation")
	}
	if e := ofType(events, agent.ElicitationAnswered)[0]; e.Ask.Elicitation != nil {
		t.Errorf("elicitation_answered repeats the request: %+v", e.Ask.Elicitation)
	}
	events = runAsking(t, asking(sampleOnce), agent.Config{}, []string{"A cat sat."})
	if e := ofType(events, agent.SamplingRequested)[0]; e.Ask.Sampling.SamplingRequest == nil {
		t.Error("sampling_requested has no request")
	}
	for _, typ := range []agent.Type{agent.SamplingToken, agent.SamplingFinished, agent.SamplingAnswered} {
		for _, e := range ofType(events, typ) {
			data, _ := json.Marshal(e)
			if strings.Contains(string(data), "Summarize") || strings.Contains(string(data), "Be brief") {
				t.Errorf("%s repeats the request: %s", typ, data)
			}
		}
	}
	if got := ofType(events, agent.SamplingAnswered)[0].Ask.Sampling.Answer; got != "A cat sat." {
		t.Errorf("sampling_answered's answer %q", got)
	}
}

// A request too big is refused with an error that says why; the events
// show it without what is too big, and nobody is asked.
func TestTooBigAsksAreRefused(t *testing.T) {
	var props []string
	for i := range agent.MaxFormFields + 1 {
		props = append(props, fmt.Sprintf(`"f%d": {"type": "string"}`, i))
	}
	manyFields := json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ",") + `}}`)
	bigSchema := json.RawMessage(`{"type": "object", "description": "` + strings.Repeat("x", agent.MaxFormSchemaBytes) + `"}`)
	many := make([]tools.SamplingMessage, agent.MaxSamplingMessages+1)
	for i := range many {
		many[i] = tools.SamplingMessage{Role: "user", Text: "hi"}
	}
	long := []tools.SamplingMessage{{Role: "user", Text: strings.Repeat("x", agent.MaxSamplingText)}}
	cases := []struct {
		name string
		do   func(ctx context.Context, a tools.Asker) error
		want string
	}{
		{"a form of many fields", func(ctx context.Context, a tools.Asker) error {
			_, err := a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitForm, Message: "?", Schema: manyFields})
			return err
		}, "the form has 65 fields, and toolscope takes at most 64"},
		{"a big schema", func(ctx context.Context, a tools.Asker) error {
			_, err := a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitForm, Message: "?", Schema: bigSchema})
			return err
		}, "the form's schema is 65573 bytes, and toolscope takes at most 65536"},
		{"many messages", func(ctx context.Context, a tools.Asker) error {
			_, err := a.Sample(ctx, tools.SamplingRequest{MaxTokens: 5, Messages: many})
			return err
		}, "the request has 101 messages, and toolscope takes at most 100"},
		{"long messages", func(ctx context.Context, a tools.Asker) error {
			_, err := a.Sample(ctx, tools.SamplingRequest{MaxTokens: 5, SystemPrompt: "Be brief.", Messages: long})
			return err
		}, "the request's system prompt and messages are 262153 bytes of text, and toolscope takes at most 262144"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &person{}
			events := runAsking(t, asking(func(ctx context.Context, a tools.Asker) (string, error) { return "", c.do(ctx, a) }), agent.Config{Answerer: p})
			if got := result(t, events); !strings.Contains(got, "refused: "+c.want) {
				t.Errorf("the server got %q, want it to say %q", got, c.want)
			}
			if len(p.asked) != 0 {
				t.Errorf("the person was asked %+v", p.asked)
			}
			for _, e := range events {
				if data, _ := json.Marshal(e); len(data) > 4096 {
					t.Errorf("a %s event of %d bytes", e.Type, len(data))
				}
			}
		})
	}
}

// A URL elicitation whose link is not http or https is refused, saying
// why, and nobody is asked to open it.
func TestURLElicitationOnlyForWebLinks(t *testing.T) {
	for _, link := range []string{"javascript:alert(1)", "file:///etc/passwd", "vscode://x/y", "https:///nohost", "https://example.com/ok"} {
		p := &person{replies: []agent.Reply{{Action: tools.Decline}}}
		open := func(ctx context.Context, a tools.Asker) (string, error) {
			r, err := a.Elicit(ctx, tools.Elicitation{Mode: tools.ElicitURL, URL: link, ElicitationID: "e", Message: "Open"})
			return r.Action, err
		}
		got := result(t, runAsking(t, asking(open), agent.Config{Answerer: p}))
		if link == "https://example.com/ok" {
			if got != tools.Decline || len(p.asked) != 1 {
				t.Errorf("%s: the server got %q, the person was asked %d times", link, got, len(p.asked))
			}
			continue
		}
		if !strings.Contains(got, "toolscope opens only http and https links") || len(p.asked) != 0 {
			t.Errorf("%s: the server got %q, the person was asked %d times", link, got, len(p.asked))
		}
	}
}
