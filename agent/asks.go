package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// A tool's server may ask things while the tool runs (see tools.Asker):
// a question for the person (an elicitation) and a reply from the model
// (sampling). The run answers them itself, as events under the call:
// the person through Config.Answerer, the model with the run's own
// backend, in a round of its own nested in the call.

// Events of a server's asks. Each carries Round and Ask; Ask.Call is the
// index of the call the server asked during.
const (
	// ElicitationRequested: a server asks the person; Ask.Elicitation.
	// Ask.Waiting when the run waits for the person's answer.
	ElicitationRequested Type = "elicitation_requested"
	// ElicitationAnswered: Reply, as the server gets it; Reply.Note says
	// why when toolscope answered in the person's place. Error, and no
	// Reply, when the request was refused.
	ElicitationAnswered Type = "elicitation_answered"
	// ElicitationCompleted: the server says a URL-mode elicitation the
	// person accepted is done.
	ElicitationCompleted Type = "elicitation_completed"
	// SamplingRequested: a server asks the model; Ask.Sampling, and
	// Input: exactly what the model is given.
	SamplingRequested Type = "sampling_requested"
	// SamplingToken: Text: raw model output of the sampling round, in
	// one Region, as Token.
	SamplingToken Type = "sampling_token"
	// SamplingFinished: the model's reply is done: Ask.Sampling.Answer,
	// Stats. Ask.Waiting in step mode, where the person approves it.
	SamplingFinished Type = "sampling_finished"
	// SamplingAnswered: what the server gets: Reply (Action accept with
	// the answer, or decline) or, when the request was refused, Error.
	SamplingAnswered Type = "sampling_answered"
)

// AskKind is what a server asks for. Its values are a stable interface.
type AskKind string

// Kinds of asks.
const (
	AskElicitation AskKind = "elicitation"
	AskSampling    AskKind = "sampling"
)

// Ask is a server's request during a call, in the events of its asks.
// The request itself (Elicitation, Sampling's SamplingRequest) is only in
// the *_requested event: a server's big request is not copied into every
// event of the ask.
type Ask struct {
	ID     int     `json:"id"` // 1, 2, … within a run
	Kind   AskKind `json:"kind"`
	Server string  `json:"server"`
	Call   int     `json:"call"` // the index of the call the server asked during
	// Elicitation is the question, for AskElicitation.
	Elicitation *tools.Elicitation `json:"elicitation,omitempty"`
	// Sampling is the request, for AskSampling.
	Sampling *Sampling `json:"sampling,omitempty"`
	// Waiting: the run waits for the person's Reply (see [Answerer]).
	Waiting bool `json:"waiting,omitempty"`
	// Until is when the run stops waiting, when whoever keeps it (a
	// server's runs.Hub) gives it a time limit.
	Until time.Time `json:"until,omitzero"`
}

// Sampling is a sampling Ask: the server's request, the token limit the
// model was given (MaxTokens, capped by Asks.SamplingMaxTokens), and the
// model's answer once it has written it. Only SamplingRequested carries
// the request: the later events of the ask leave it nil.
type Sampling struct {
	*tools.SamplingRequest
	GrantedTokens int    `json:"granted_tokens"`
	Answer        string `json:"answer,omitempty"`
}

// Reply is the answer to an Ask. For an elicitation, Action is
// tools.Accept (with Content, for a form), tools.Decline or tools.Cancel.
// For a sampling request the person approves (step mode), Accept sends
// the model's answer back, or Answer in its place; Decline refuses it.
type Reply struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Answer  *string        `json:"answer,omitempty"`
	// Note says why toolscope answered in the person's place.
	Note string `json:"note,omitempty"`
}

// Answerer asks a person a server's Ask: the page, or the chat's
// terminal. Answer blocks the call the server asked during until the
// person replies or ctx ends (the Reply then does not matter). A Reply
// that does not fit the Ask (see [Ask.Check]) is taken as a Cancel.
type Answerer interface {
	Answer(ctx context.Context, a Ask) Reply
}

// ElicitPolicy is how a run answers elicitations.
type ElicitPolicy string

// Policies of Asks.Elicit. Their values are the --elicit flag's.
const (
	// ElicitAsk asks the person through Config.Answerer; with none (a
	// run in toolscope run), it declines.
	ElicitAsk ElicitPolicy = "ask"
	// ElicitDecline declines every elicitation.
	ElicitDecline ElicitPolicy = "decline"
	// ElicitDefaults accepts a form filled with its schema's defaults,
	// for scripts and CI; one with a required field that has no default,
	// or a link to open, it declines.
	ElicitDefaults ElicitPolicy = "defaults"
)

// Asks bounds what the run answers of its tools' servers.
type Asks struct {
	Elicit ElicitPolicy
	// SamplingMaxTokens caps a sampling request's maxTokens.
	SamplingMaxTokens int
	// SamplingPerCall is how many sampling requests one call may make;
	// past it, the server is refused.
	SamplingPerCall int
}

// Defaults of Asks.
const (
	DefaultSamplingMaxTokens = 1024
	DefaultSamplingPerCall   = 3
)

func (a Asks) withDefaults() Asks {
	if a.Elicit == "" {
		a.Elicit = ElicitAsk
	}
	if a.SamplingMaxTokens <= 0 {
		a.SamplingMaxTokens = DefaultSamplingMaxTokens
	}
	if a.SamplingPerCall <= 0 {
		a.SamplingPerCall = DefaultSamplingPerCall
	}
	return a
}

// Answering returns an Agent like a whose runs ask the person through x;
// nil for none. Like Stepping, it is per run.
func (a *Agent) Answering(x Answerer) *Agent {
	cfg := a.cfg
	cfg.Answerer = x
	return &Agent{cfg: cfg}
}

// Check reports whether r fits a: an action the ask takes, and for an
// accepted form, content the form's schema takes.
func (a Ask) Check(r Reply) error {
	actions := []string{tools.Accept, tools.Decline, tools.Cancel}
	if a.Kind == AskSampling {
		actions = []string{tools.Accept, tools.Decline}
	}
	if !slices.Contains(actions, r.Action) {
		return fmt.Errorf("action %q is not one of %s", r.Action, strings.Join(actions, ", "))
	}
	isForm := a.Kind == AskElicitation && a.Elicitation != nil && a.Elicitation.Mode == tools.ElicitForm
	switch {
	case r.Answer != nil && a.Kind != AskSampling:
		return errors.New(`"answer" is for a sampling request's reply`)
	case r.Content != nil && (!isForm || r.Action != tools.Accept):
		return errors.New(`"content" is for an accepted form`)
	case isForm && r.Action == tools.Accept:
		return checkForm(a.Elicitation.Schema, r.Content)
	}
	return nil
}

// form is an elicitation's requested schema, as far as toolscope reads it.
type form struct {
	Properties map[string]struct {
		Type    string   `json:"type"`
		Enum    []any    `json:"enum"`
		Minimum *float64 `json:"minimum"`
		Maximum *float64 `json:"maximum"`
		Default any      `json:"default"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// checkForm checks content against schema: the required fields are
// there, and each field has its type, is one of its enum and within its
// bounds. The server checks it again, to the letter of the schema.
func checkForm(schema json.RawMessage, content map[string]any) error {
	var f form
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &f); err != nil {
			return fmt.Errorf("the form's schema cannot be read: %v", err)
		}
	}
	for _, name := range f.Required {
		if _, ok := content[name]; !ok {
			return fmt.Errorf("field %q is required", name)
		}
	}
	for name, v := range content {
		if err := f.check(name, v); err != nil {
			return err
		}
	}
	return nil
}

// CheckField reports whether v fits the field name of an elicitation's
// form, as Check does, for a front end that asks the fields one by one.
func (a Ask) CheckField(name string, v any) error {
	var f form
	if a.Elicitation == nil || json.Unmarshal(a.Elicitation.Schema, &f) != nil {
		return errors.New("the ask has no form")
	}
	return f.check(name, v)
}

// check reports whether v fits the field name: its type, its enum and
// its bounds.
func (f form) check(name string, v any) error {
	p, ok := f.Properties[name]
	if !ok {
		return fmt.Errorf("field %q is not in the form", name)
	}
	n, isNumber := v.(float64)
	switch _, isString := v.(string); {
	case p.Type == "string" && !isString, p.Type == "boolean" && !isBool(v), p.Type == "array" && !isList(v),
		(p.Type == "number" || p.Type == "integer") && !isNumber:
		return fmt.Errorf("field %q must be a %s", name, p.Type)
	case p.Type == "integer" && n != math.Trunc(n):
		return fmt.Errorf("field %q must be a whole number", name)
	case p.Minimum != nil && isNumber && n < *p.Minimum, p.Maximum != nil && isNumber && n > *p.Maximum:
		return fmt.Errorf("field %q must be from %v to %v", name, bound(p.Minimum, "…"), bound(p.Maximum, "…"))
	case len(p.Enum) > 0 && !slices.Contains(p.Enum, v):
		return fmt.Errorf("field %q must be one of %v", name, p.Enum)
	}
	return nil
}

func isBool(v any) bool { _, ok := v.(bool); return ok }
func isList(v any) bool { _, ok := v.([]any); return ok }

func bound(n *float64, none string) any {
	if n == nil {
		return none
	}
	return *n
}

// Bounds of what a server may ask, past which it is refused: a hostile
// or broken server must not flood the run's events, the page or the model.
const (
	MaxFormFields       = 64
	MaxFormSchemaBytes  = 64 << 10
	MaxSamplingMessages = 100
	MaxSamplingText     = 256 << 10 // bytes of the system prompt and messages
)

// checkElicitation refuses an elicitation toolscope will not show: a
// form too big, or a link that is not a web page's (a javascript:,
// file: or app's link would do on the person's machine what its server
// chose).
func checkElicitation(e tools.Elicitation) error {
	if e.Mode == tools.ElicitURL {
		u, err := url.Parse(e.URL)
		switch {
		case err != nil:
			return fmt.Errorf("refused: the link %q cannot be read: %v", e.URL, err)
		case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
			return fmt.Errorf("refused: toolscope opens only http and https links, and %q is not one", e.URL)
		}
		return nil
	}
	if e.Mode != tools.ElicitForm {
		return nil
	}
	if len(e.Schema) > MaxFormSchemaBytes {
		return fmt.Errorf("refused: the form's schema is %d bytes, and toolscope takes at most %d", len(e.Schema), MaxFormSchemaBytes)
	}
	var f struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if len(e.Schema) > 0 && json.Unmarshal(e.Schema, &f) == nil && len(f.Properties) > MaxFormFields {
		return fmt.Errorf("refused: the form has %d fields, and toolscope takes at most %d", len(f.Properties), MaxFormFields)
	}
	return nil
}

// checkSampling refuses a sampling request too big to show and to give
// the model.
func checkSampling(s tools.SamplingRequest) error {
	if len(s.Messages) > MaxSamplingMessages {
		return fmt.Errorf("refused: the request has %d messages, and toolscope takes at most %d", len(s.Messages), MaxSamplingMessages)
	}
	size := len(s.SystemPrompt)
	for _, m := range s.Messages {
		size += len(m.Text)
	}
	if size > MaxSamplingText {
		return fmt.Errorf("refused: the request's system prompt and messages are %d bytes of text, and toolscope takes at most %d", size, MaxSamplingText)
	}
	return nil
}

// defaultsReply is ElicitDefaults' reply to e.
func defaultsReply(e tools.Elicitation) Reply {
	if e.Mode != tools.ElicitForm {
		return Reply{Action: tools.Decline, Note: "declined: --elicit defaults opens no links"}
	}
	var f form
	if len(e.Schema) > 0 && json.Unmarshal(e.Schema, &f) != nil {
		return Reply{Action: tools.Decline, Note: "declined: the form's schema cannot be read"}
	}
	content := map[string]any{}
	for name, p := range f.Properties {
		if p.Default != nil {
			content[name] = p.Default
		}
	}
	for _, name := range f.Required {
		if _, ok := content[name]; !ok {
			return Reply{Action: tools.Decline, Note: fmt.Sprintf("declined: --elicit defaults cannot fill the required field %q, which has no default", name)}
		}
	}
	return Reply{Action: tools.Accept, Content: content, Note: "accepted with the form's defaults (--elicit defaults)"}
}

// asker is a call's tools.Asker: it answers as the run does, in events
// under the call, one ask at a time, while the call runs.
type asker struct {
	r     *run
	round int
	call  *Call
	// ctx ends when the call does: a person's answer or a model's reply
	// still under way is then abandoned.
	ctx    context.Context
	cancel context.CancelFunc
	// clock is the call's tool timeout, held while the person answers.
	clock toolClock

	mu      sync.Mutex // one ask at a time, held while it is answered
	samples int        // sampling requests made so far
	// closed is set, under the run's sending lock, once the call is over:
	// no event of its asks comes after that.
	closed atomic.Bool
	// urls are the asks of URL elicitations accepted, by elicitation id,
	// under urlsMu alone: a completion must not wait on an ask under way,
	// which would hold up every notification of its server.
	urlsMu sync.Mutex
	urls   map[string]int
}

// newAsker is the asker of call c, whose context ctx is.
func (r *run) newAsker(ctx context.Context, round int, c *Call) *asker {
	a := &asker{r: r, round: round, call: c, urls: map[string]int{}}
	a.ctx, a.cancel = context.WithCancel(ctx)
	return a
}

// close ends the asks of a call that is over: the one under way, if
// any, is told to stop, and no event of it comes after the call's end.
// It does not wait for that ask, whose Answerer or backend may ignore
// its context, as the call leaves behind a tool that never returns.
func (a *asker) close() {
	a.cancel()
	a.r.sending.Lock()
	defer a.r.sending.Unlock()
	a.closed.Store(true)
}

var errCallOver = errors.New("the tool call this request belongs to is over")

// open starts an ask of kind from server; a.mu is held. An ask left
// behind by a call that is over may still be opening: the run's sending
// lock keeps the count.
func (a *asker) open(kind AskKind, server string) *Ask {
	a.r.sending.Lock()
	defer a.r.sending.Unlock()
	a.r.asks++
	return &Ask{ID: a.r.asks, Kind: kind, Server: server, Call: a.call.Index}
}

// send sends an event of typ about ask, which it copies: the ask goes on
// changing (its answer, whether it waits), and an event keeps it as it
// was. Only a *_requested event carries the server's request.
func (a *asker) send(typ Type, ask *Ask, e Event) {
	told := *ask
	requested := typ == ElicitationRequested || typ == SamplingRequested
	if !requested {
		told.Elicitation = nil
	}
	if ask.Sampling != nil {
		s := *ask.Sampling
		if !requested {
			s.SamplingRequest = nil
		}
		told.Sampling = &s
	}
	e.Type, e.Round, e.Ask = typ, a.round, &told
	a.r.sending.Lock()
	defer a.r.sending.Unlock()
	if !a.closed.Load() {
		a.r.emitLocked(e)
	}
}

// within returns ctx ending also when the call does.
func (a *asker) within(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(a.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// answer asks the person ask, sent as an event of typ first. The tool's
// timeout stands still meanwhile: the Answerer has its own time limit.
func (a *asker) answer(ctx context.Context, typ Type, ask *Ask, e Event) Reply {
	defer a.clock.hold()()
	ask.Waiting = true
	a.send(typ, ask, e)
	ctx, cancel := a.within(ctx)
	defer cancel()
	reply := a.r.agent.cfg.Answerer.Answer(ctx, *ask)
	ask.Waiting = false
	switch {
	case ctx.Err() != nil:
		return Reply{Action: tools.Cancel, Note: "cancelled: the call ended before the person answered"}
	case ask.Check(reply) != nil:
		return Reply{Action: tools.Cancel, Note: "cancelled: the answer did not fit the question"}
	}
	return reply
}

// Elicit implements tools.Asker.
func (a *asker) Elicit(ctx context.Context, e tools.Elicitation) (tools.ElicitReply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return tools.ElicitReply{}, errCallOver
	}
	cfg := a.r.agent.cfg
	ask := a.open(AskElicitation, e.Server)
	ask.Elicitation = &e
	if err := checkElicitation(e); err != nil {
		// Shown without its schema, which may be what is too big.
		shown := e
		shown.Schema = nil
		ask.Elicitation = &shown
		a.send(ElicitationRequested, ask, Event{})
		a.send(ElicitationAnswered, ask, Event{Error: err.Error()})
		return tools.ElicitReply{}, err
	}
	var reply Reply
	switch {
	case cfg.Asks.Elicit == ElicitAsk && cfg.Answerer != nil:
		reply = a.answer(ctx, ElicitationRequested, ask, Event{})
	case cfg.Asks.Elicit == ElicitDefaults:
		a.send(ElicitationRequested, ask, Event{})
		reply = defaultsReply(e)
	case cfg.Asks.Elicit == ElicitDecline:
		a.send(ElicitationRequested, ask, Event{})
		reply = Reply{Action: tools.Decline, Note: "declined: --elicit decline"}
	default:
		a.send(ElicitationRequested, ask, Event{})
		reply = Reply{Action: tools.Decline, Note: "declined: nobody to ask here (toolscope run); give --elicit defaults to accept a form's defaults"}
	}
	a.send(ElicitationAnswered, ask, Event{Reply: &reply})
	if e.Mode == tools.ElicitURL && reply.Action == tools.Accept && e.ElicitationID != "" {
		a.urlsMu.Lock()
		a.urls[e.ElicitationID] = ask.ID
		a.urlsMu.Unlock()
	}
	return tools.ElicitReply{Action: reply.Action, Content: reply.Content}, nil
}

// ElicitationCompleted implements tools.Asker.
func (a *asker) ElicitationCompleted(id string) {
	a.urlsMu.Lock()
	at, ok := a.urls[id]
	delete(a.urls, id)
	a.urlsMu.Unlock()
	if !ok {
		return // not one of this call's
	}
	a.send(ElicitationCompleted, &Ask{ID: at, Kind: AskElicitation, Server: "", Call: a.call.Index}, Event{})
}

// Sample implements tools.Asker: the run's model answers the request in
// a round of its own, which the person approves in step mode.
func (a *asker) Sample(ctx context.Context, s tools.SamplingRequest) (tools.SamplingReply, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Load() {
		return tools.SamplingReply{}, errCallOver
	}
	cfg := a.r.agent.cfg
	a.samples++
	ask := a.open(AskSampling, s.Server)
	ask.Sampling = &Sampling{SamplingRequest: &s, GrantedTokens: min(max(s.MaxTokens, 1), cfg.Asks.SamplingMaxTokens)}
	refuse := func(err error) (tools.SamplingReply, error) {
		a.send(SamplingAnswered, ask, Event{Error: err.Error()})
		return tools.SamplingReply{}, err
	}
	if err := checkSampling(s); err != nil {
		// Shown without its text, which is what is too big.
		shown := s
		shown.SystemPrompt, shown.Messages = "", nil
		ask.Sampling.SamplingRequest = &shown
		a.send(SamplingRequested, ask, Event{})
		return refuse(err)
	}
	if a.samples > cfg.Asks.SamplingPerCall {
		a.send(SamplingRequested, ask, Event{})
		return refuse(fmt.Errorf("refused: a tool call may make %d sampling requests (--sampling-per-call), and this is number %d", cfg.Asks.SamplingPerCall, a.samples))
	}
	ctx, cancel := a.within(ctx)
	defer cancel()
	in, err := cfg.Backend.Prepare(ctx, a.request(ask.Sampling))
	if err != nil {
		a.send(SamplingRequested, ask, Event{})
		return refuse(fmt.Errorf("the model could not be asked: %v", err))
	}
	a.send(SamplingRequested, ask, Event{Input: &in})
	text, stats, err := a.stream(ctx, ask, in)
	if err != nil {
		return refuse(fmt.Errorf("the model failed to answer: %v", err))
	}
	ask.Sampling.Answer = text
	var reply Reply
	if cfg.Stepper != nil && cfg.Answerer != nil {
		reply = a.answer(ctx, SamplingFinished, ask, Event{Stats: stats})
	} else {
		a.send(SamplingFinished, ask, Event{Stats: stats})
		reply = Reply{Action: tools.Accept}
	}
	switch {
	case reply.Action != tools.Accept:
		why := "declined by the user"
		if reply.Note != "" {
			why = reply.Note
		}
		return refuse(errors.New(why))
	case reply.Answer != nil:
		text = *reply.Answer
	}
	reply.Answer = &text
	a.send(SamplingAnswered, ask, Event{Reply: &reply})
	stop := "endTurn"
	if stats.DoneReason == llm.DoneLength {
		stop = "maxTokens"
	}
	return tools.SamplingReply{Text: text, Model: a.r.model, StopReason: stop}, nil
}

// request is what the model reads for s: the server's system prompt and
// messages; with includeContext "thisServer" or "allServers", the
// request that started the run too, as context in the system prompt.
func (a *asker) request(s *Sampling) llm.Request {
	cfg := a.r.agent.cfg
	var msgs []llm.Message
	system := s.SystemPrompt
	if s.IncludeContext == "thisServer" || s.IncludeContext == "allServers" {
		system = strings.TrimSpace(system + "\n\nContext: the user asked: " + a.r.message)
	}
	if system != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	}
	for _, m := range s.Messages {
		role := llm.RoleUser
		if m.Role == "assistant" {
			role = llm.RoleAssistant
		}
		msgs = append(msgs, llm.Message{Role: role, Content: m.Text})
	}
	opts := &llm.Sampling{MaxTokens: &s.GrantedTokens, Temperature: s.Temperature, Stop: s.StopSequences}
	if cfg.Options != nil {
		opts.Seed = cfg.Options.Seed
	}
	return llm.Request{Messages: msgs, Think: cfg.Think, Options: opts}
}

// stream sends in to the model and its reply, as it comes, in
// SamplingToken events; it returns the answer: the reply, thinking left
// out.
func (a *asker) stream(ctx context.Context, ask *Ask, in llm.Input) (string, *RoundStats, error) {
	var answer strings.Builder
	send := func(e Event) {
		if e.Region != streamparser.ThinkRegion {
			answer.WriteString(e.Text)
		}
		a.send(SamplingToken, &Ask{ID: ask.ID, Kind: AskSampling, Server: ask.Server, Call: ask.Call}, e)
	}
	// No tools are offered: whatever the model writes is its answer, bar
	// its thinking.
	parser, err := streamparser.New(streamparser.Options{InThinking: streamparser.OpensThinking(in.Prompt), Dialect: a.r.agent.cfg.Dialect})
	if err != nil {
		return "", nil, err
	}
	unread := ""
	sent := time.Now()
	var firstToken time.Duration
	stats, err := a.r.agent.cfg.Backend.Stream(ctx, in, func(c llm.Chunk) error {
		if firstToken == 0 {
			firstToken = time.Since(sent)
		}
		if c.Thinking != "" {
			send(Event{Text: c.Thinking, Region: streamparser.ThinkRegion})
		}
		if c.Content != "" {
			parser.Feed(c.Content, func(streamparser.Event) {})
			unread = readTokens(unread+c.Content, parser, send)
		}
		return nil
	})
	parser.Flush(func(streamparser.Event) {})
	readTokens(unread, parser, send)
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(answer.String()), roundStats(stats, firstToken), nil
}
