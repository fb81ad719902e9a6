// Package agent runs the tool-calling loop. Each round it gives the model
// the conversation, parses the streamed reply with package [streamparser],
// runs the tools the model called, and answers with one <tool_response>
// block per call in a new user turn, until the model answers in plain text. Every step is reported
// as an [Event]; the package formats nothing for a screen, so every front
// end renders the same stream.
//
// # Running the loop
//
// [New] builds an [Agent] from a [Config]: an [llm.Backend], a
// [tools.Registry] and the dialect, round limit and tool timeout.
// [Agent.Run] answers a message within a [Conversation], which follow-up
// messages continue, and returns a [Result]: the answer and the [Reason]
// the run ended. [Agent.Answer] does the same for a caller that keeps the
// history itself, as an OpenAI API client does, and [Config.ReturnCalls]
// hands the model's calls back to such a caller instead of running them
// (see [CallerTool]). The package Example runs the offline demo model with
// the stub tools; the Example of [Agent.Run] writes a scripted
// [llm.Backend] of its own, the way to test code that uses an Agent.
//
// # Events
//
// Each step is an [Event] whose [Type] says what happened: a run's first
// event is [RunStarted] and its last [RunFinished]; between them each
// round streams the model's raw [Token] events with the parser's
// [TextDelta], [ThinkingDelta] and tool-call events, then runs the parsed
// calls ([ToolStarted], [ToolFinished]) and sends their [ToolResponse].
// The Type names and Event's JSON are a stable interface: front ends and
// scripts depend on them. Package transcript folds them into rounds and
// calls, and rebuilds a finished run's conversation from them alone.
// [WithRegions] gives the Token events of a run recorded before they
// carried a Region theirs, for readers of stored runs.
//
// # Guarantees
//
// Run calls emit from the calling goroutine, in order, with Seq counting
// 1, 2, … within the run. Tool failures, invalid calls included, never end
// a run: they go back to the model as errors it can act on. A run ends
// when the model answers (or calls tools the caller runs), the round limit
// is reached, the reply is cut off, ctx ends, or the backend fails, and it
// says which in [RunFinished] and [Result]. An Agent
// holds no per-run state, so one Agent can serve many runs at once; runs
// on one Conversation must not overlap.
//
// # Step mode and tool retrieval
//
// A [Stepper] pauses a run before each model call, each tool call and each
// tool response, and may [Edit] what happens next ([Agent.Stepping],
// [Pause], [Change]). A [Selector] chooses which of many tools a run
// offers ([Selection], [ToolsSelected]).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// toolGrace is how long a cancelled or timed-out tool may take to stop.
const toolGrace = time.Second

// Defaults for Config fields left zero.
const (
	DefaultMaxRounds   = 8
	DefaultToolTimeout = 30 * time.Second
)

// Config sets up an Agent.
type Config struct {
	Backend llm.Backend
	Tools   *tools.Registry
	// MaxRounds bounds the model replies of one run.
	MaxRounds int
	// ToolTimeout bounds one tool call.
	ToolTimeout time.Duration
	// Think asks for reasoning: nil lets the backend decide.
	Think *bool
	// Options tune every reply of the run (temperature, stop strings, a
	// length limit…); nil keeps the backend's defaults.
	Options *llm.Sampling
	// Dialect is how the model is told to write calls, and how they are read.
	Dialect streamparser.Dialect
	// Now gives the date and time the system prompt states (time.Now if nil).
	Now func() time.Time
	// ReturnCalls says the caller runs the tools, as an OpenAI API client
	// does: Tools only describe them (see [CallerTool]), and a reply with
	// valid calls ends the run with Reason Returned and the calls in
	// Result.Calls. Calls that are not valid, arguments included, go back
	// to the model with the reason, as when the agent runs the tools, so
	// the caller never gets a call it cannot run; MaxRounds bounds those
	// retries.
	ReturnCalls bool
	// Selector, when not nil, chooses at the start of each run which of
	// Tools to offer (tool retrieval); nil offers them all.
	Selector Selector
	// Stepper, when not nil, pauses each run before every model call,
	// before every call it runs, and before the calls' responses go back
	// (step mode; see [Agent.Stepping]); nil never pauses.
	Stepper Stepper
	// Answerer, when not nil, asks the person what a tool's server asks
	// of them while the tool runs (see [Asks]); nil asks nobody.
	Answerer Answerer
	// Asks bounds how a run answers what its tools' servers ask.
	Asks Asks
	// Settings are what the agent was built from, as a JSON object, for
	// RunStarted to record: the agent does not read them, it passes them
	// on, so that a rerun or a replay can start from the same settings.
	Settings json.RawMessage
}

// Selector chooses the tools a run offers, for the request query and out
// of Config.Tools. keep names the tools already called in the
// conversation, which stay offered so that a follow-up can use them
// again. A nil Selection offers every tool, as when there are too few to
// choose from; otherwise the run offers the Selection's tools that
// Config.Tools holds, and reports it in a ToolsSelected event.
type Selector interface {
	Select(ctx context.Context, query string, keep []string) *Selection
}

// Agent runs the loop for one backend and one set of tools. It holds no
// per-run state, so one Agent can serve many runs at once.
type Agent struct {
	cfg Config
}

// New returns an Agent, filling in defaults.
func New(cfg Config) *Agent {
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.ToolTimeout <= 0 {
		cfg.ToolTimeout = DefaultToolTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tools == nil {
		cfg.Tools, _ = tools.NewRegistry()
	}
	cfg.Asks = cfg.Asks.withDefaults()
	return &Agent{cfg: cfg}
}

// Conversation is the history that follow-up questions build on: the
// system prompt, the requests, the model's raw replies and the tool
// responses. Runs on one Conversation must not overlap.
type Conversation struct {
	Messages []llm.Message `json:"messages"`
	// System is the caller's own instructions, which the system prompt
	// opens with in place of toolscope's; empty for toolscope's.
	System string `json:"system,omitempty"`
	// Called names the tools run in the conversation so far, in the order
	// first called: a Selector keeps offering them.
	Called []string `json:"called,omitempty"`
}

// Result is how a run ended.
type Result struct {
	Reason Reason // Answered, Returned, MaxRounds, Cancelled, CutOff or Failed
	Text   string // the answer
	Rounds int
	Err    error   // the backend error when Reason is Failed
	Calls  []*Call // the calls for the caller to run when Reason is Returned
}

// Run answers message within conv and reports every step to emit, in order,
// from the calling goroutine. It returns when the model answers, the round
// limit is reached, ctx ends, or the backend fails; tool failures never end
// a run, they go back to the model as errors it can act on.
func (a *Agent) Run(ctx context.Context, conv *Conversation, message string, emit func(Event)) Result {
	o := a.offer(ctx, conv, message)
	a.writeSystem(conv, o.tools)
	conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: message})
	return a.answer(ctx, conv, message, o, emit)
}

// Answer is Run for a caller that keeps the history itself, as an OpenAI
// API client does: conv already ends with the user's turn, a request or
// tool responses (see [ToolResponses]), after a first message whose place
// the system prompt takes. message is what RunStarted says was asked.
func (a *Agent) Answer(ctx context.Context, conv *Conversation, message string, emit func(Event)) Result {
	o := a.offer(ctx, conv, message)
	a.writeSystem(conv, o.tools)
	return a.answer(ctx, conv, message, o, emit)
}

// offered is what one run offers the model: its tools, and the Selection
// that chose them (nil when every tool is offered).
type offered struct {
	tools     *tools.Registry
	selection *Selection
}

// offer asks the Selector, once per run, which tools to offer: the
// request decides what is relevant, and the rounds that follow carry on
// with the tools the model was first shown.
func (a *Agent) offer(ctx context.Context, conv *Conversation, query string) offered {
	all := offered{tools: a.cfg.Tools}
	if a.cfg.Selector == nil {
		return all
	}
	sel := a.cfg.Selector.Select(ctx, query, conv.Called)
	if sel == nil {
		return all
	}
	var chosen []tools.Tool
	for _, name := range sel.Names() {
		if t, ok := a.cfg.Tools.Lookup(name); ok {
			chosen = append(chosen, t)
		}
	}
	reg, err := tools.NewRegistry(chosen...)
	if err != nil {
		return all // Config.Tools took each of them already; not reached
	}
	return offered{tools: reg, selection: sel}
}

// writeSystem puts the system prompt first in conv. It is written anew for
// each request, so that a change of tools or dialect applies to follow-ups.
func (a *Agent) writeSystem(conv *Conversation, offer *tools.Registry) {
	system := llm.Message{Role: llm.RoleSystem, Content: systemPrompt(conv.System, offer.Tools(), a.cfg.Dialect, a.cfg.Now())}
	if len(conv.Messages) == 0 {
		conv.Messages = append(conv.Messages, system)
	} else {
		conv.Messages[0] = system
	}
}

func (a *Agent) answer(ctx context.Context, conv *Conversation, message string, o offered, emit func(Event)) Result {
	info := a.cfg.Backend.Info()
	r := &run{agent: a, tools: o.tools, conv: conv, emit: emit, start: time.Now(), backend: info.Backend, model: info.Model, message: message}
	r.send(Event{Type: RunStarted, Run: &RunInfo{Info: info, Message: message,
		Tools: o.tools.Names(), Dialect: a.cfg.Dialect.String(), DialectMarks: a.cfg.Dialect.Describe(), Settings: a.cfg.Settings}})
	if o.selection != nil {
		r.send(Event{Type: ToolsSelected, Selection: o.selection})
	}
	res := r.loop(ctx)
	if note, ok := endings[res.Reason]; ok {
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Content: note})
	}
	if res.Err != nil {
		r.send(failure(res.Rounds, res.Err))
	}
	r.send(Event{Type: RunFinished, Reason: res.Reason, Text: res.Text, Rounds: res.Rounds})
	return res
}

// endings close the assistant's turn of a run that ended without an
// answer. Without one the conversation would end on a user turn (the
// request, or the calls' <tool_response> blocks), and Ollama's templates
// merge consecutive messages of one role: a follow-up would join that
// turn, and the model would read it as more tool results. With one, the
// follow-up is a turn of its own, and the model reads why the last ended.
var endings = map[Reason]string{
	Cancelled: "(" + stoppedByUser + ")",
	MaxRounds: "(stopped: too many rounds of tool calls)",
	Failed:    "(stopped by an error)",
	CutOff:    "(cut off: the reply reached the length limit)",
}

// EndingNote is the note that closes the assistant's turn of a run that
// ended so (see endings); "" for a run that answered.
func EndingNote(r Reason) string { return endings[r] }

// stoppedByUser is what the model and the person read about calls that a
// cancelled run stopped, or never ran.
const stoppedByUser = "stopped by the user"

// notRunCut is what the model reads about the calls of a reply that a
// failed stream or the length limit cut off.
const notRunCut = "not run: the reply was cut off"

// errStopped is the error of a call that a cancelled run stopped.
var errStopped = errors.New(stoppedByUser)

// failure is the Error event for a backend error. An *llm.Error's fix goes
// in its own field, for each front end to word, so the text is its
// problem alone.
func failure(round int, err error) Event {
	var le *llm.Error
	if errors.As(err, &le) {
		return Event{Type: Error, Round: round, Error: le.Problem, Fix: le.Fix}
	}
	return Event{Type: Error, Round: round, Error: err.Error()}
}

// run is the state of one Run.
type run struct {
	agent *Agent
	tools *tools.Registry // the tools this run offers
	conv  *Conversation
	emit  func(Event)
	start time.Time
	seq   int
	// backend names the model server for what its own parser took out
	// of a reply ("ollama", or "openai" for an OpenAI-compatible server);
	// read once, as Info may ask the server.
	backend string
	model   string // the model's name, for the servers whose sampling requests it answers
	message string // the request, for a sampling request that asks for context
	asks    int    // the servers' asks so far, which number them; under sending

	// sending orders the events a tool's server causes (asks.go), sent
	// from the connection's goroutine while the run waits on the call.
	sending sync.Mutex
}

func (r *run) send(e Event) {
	r.sending.Lock()
	defer r.sending.Unlock()
	r.emitLocked(e)
}

// emitLocked numbers and emits e; r.sending is held.
func (r *run) emitLocked(e Event) {
	r.seq++
	e.Seq = r.seq
	e.AtMS = time.Since(r.start).Milliseconds()
	r.emit(e)
}

func (r *run) loop(ctx context.Context) Result {
	for round := 1; ; round++ {
		reply, err := r.round(ctx, round)
		r.keep(reply)
		switch {
		case ctx.Err() != nil:
			r.answerCalls(ctx, round, reply)
			return Result{Reason: Cancelled, Text: reply.text(), Rounds: round}
		case err != nil:
			// The Error event says why, for the person; the model cannot
			// act on a backend's error text.
			r.refuseCalls(round, reply.calls, notRunCut)
			return Result{Reason: Failed, Rounds: round, Err: err}
		case reply.cut == CutOff:
			// Half a reply is no answer, and its calls may be cut too.
			r.refuseCalls(round, reply.calls, notRunCut)
			return Result{Reason: CutOff, Text: reply.text(), Rounds: round}
		case len(reply.calls) == 0:
			return Result{Reason: Answered, Text: reply.text(), Rounds: round}
		case r.agent.cfg.ReturnCalls && reply.valid() != nil:
			return Result{Reason: Returned, Text: reply.text(), Rounds: round, Calls: reply.valid()}
		}
		r.answerCalls(ctx, round, reply)
		switch {
		case ctx.Err() != nil:
			return Result{Reason: Cancelled, Rounds: round}
		case round == r.agent.cfg.MaxRounds:
			return Result{Reason: MaxRounds, Rounds: round}
		}
	}
}

// keep adds the model's reply to the conversation, and notes where: a
// call edited at a pause is written back into it.
func (r *run) keep(rep *reply) {
	if msg := rep.message(); msg.Content != "" || msg.Thinking != "" {
		rep.at = len(r.conv.Messages)
		r.conv.Messages = append(r.conv.Messages, msg)
	}
}

// round asks the model once and streams its reply through the parser.
func (r *run) round(ctx context.Context, round int) (*reply, error) {
	cfg := r.agent.cfg
	rep := &reply{}
	// A copy: the input is kept in an event, and the conversation goes on.
	in, err := cfg.Backend.Prepare(ctx, llm.Request{Messages: slices.Clone(r.conv.Messages), Think: cfg.Think, Options: cfg.Options})
	if err != nil {
		return rep, err
	}
	inThinking := streamparser.OpensThinking(in.Prompt)
	r.send(Event{Type: RoundStarted, Round: round, Input: &in, StartsInThinking: inThinking})
	if cfg.Stepper != nil {
		in = r.stepInput(ctx, round, in)
		inThinking = streamparser.OpensThinking(in.Prompt)
	}

	parser, err := streamparser.New(r.parsing(inThinking))
	if err != nil {
		return rep, err
	}
	onEvent := func(pe streamparser.Event) { r.parsed(round, rep, pe) }
	sendToken := func(e Event) { e.Round = round; r.send(e) }
	unread := "" // the reply's bytes the parser holds back
	sent := time.Now()
	var firstToken time.Duration
	stats, err := cfg.Backend.Stream(ctx, in, func(c llm.Chunk) error {
		if firstToken == 0 {
			firstToken = time.Since(sent)
		}
		if c.Thinking != "" {
			rep.thinking.WriteString(c.Thinking)
			r.send(Event{Type: ThinkingDelta, Round: round, Text: c.Thinking, ParsedBy: r.backend})
		}
		if c.Content != "" {
			parser.Feed(c.Content, onEvent)
			unread = readTokens(unread+c.Content, parser, sendToken)
		}
		for _, tc := range c.ToolCalls {
			r.ollamaCall(round, rep, tc)
		}
		return nil
	})
	rep.cut = cutBy(ctx, err, stats)
	parser.Flush(onEvent)
	readTokens(unread, parser, sendToken)
	r.send(Event{Type: RoundFinished, Round: round, Stats: roundStats(stats, firstToken)})
	return rep, err
}

// readTokens sends what the parser has just read of text (the bytes it
// held back, then the chunk it was fed) as Token events, one per region
// it read them in, each with what it holds back now; it returns the bytes
// still held. A chunk held back whole is one Token event with no text,
// in the region the parser reads in, so that a screen shows it as
// pending at once. The events have no Round: send sets it. A run sends
// them as it reads its reply, and [WithRegions] as it reads an old run's.
func readTokens(text string, p *streamparser.Parser, send func(Event)) string {
	pending := p.Pending()
	spans := p.Read()
	if len(spans) == 0 && pending != "" {
		send(Event{Type: Token, Region: p.Region(), Pending: pending})
	}
	for _, s := range spans {
		send(Event{Type: Token, Text: text[:s.Len], Region: s.Region, Pending: pending})
		text = text[s.Len:]
	}
	return text
}

// cutBy says what ended a reply before the model did: the caller's stop,
// the backend's failure, or the model's length limit; "" when the model
// ended it.
func cutBy(ctx context.Context, err error, s llm.Stats) Reason {
	switch {
	case ctx.Err() != nil:
		return Cancelled
	case err != nil:
		return Failed
	case s.DoneReason == llm.DoneLength:
		return CutOff
	}
	return ""
}

// parsed turns a parser event into run events and the reply's record.
func (r *run) parsed(round int, rep *reply, pe streamparser.Event) {
	switch pe.Kind {
	case streamparser.Text:
		rep.content.WriteString(pe.Text)
		r.send(Event{Type: TextDelta, Round: round, Text: pe.Text})
	case streamparser.Thinking:
		rep.thinking.WriteString(pe.Text)
		r.send(Event{Type: ThinkingDelta, Round: round, Text: pe.Text, ParsedBy: "toolscope"})
	case streamparser.CallOpen:
		r.send(Event{Type: ToolCallOpened, Round: round, Call: &Call{Index: rep.index(pe.Index), ParsedBy: "toolscope"}})
	case streamparser.CallDelta:
		r.send(Event{Type: ToolCallDelta, Round: round, Text: pe.Text, Call: &Call{Index: rep.index(pe.Index), ParsedBy: "toolscope"}})
	case streamparser.CallParsed, streamparser.CallInvalid:
		c := &Call{Index: rep.index(pe.Index), Name: pe.Call.Name, Arguments: pe.Call.Arguments, Raw: pe.Call.Raw, Reason: pe.Call.Reason, ParsedBy: "toolscope"}
		if c.Reason == "" && r.agent.cfg.ReturnCalls {
			// The caller's tool is not run here, so its check comes now:
			// the caller must get only calls it can run.
			if err := r.tools.Check(c.Name, c.Arguments); err != nil {
				c.Reason = err.Error()
			}
		}
		rep.addCall(c, pe.Call.Text)
		if pe.Call.Reason == streamparser.Unclosed && rep.cut != "" {
			r.cutCall(round, rep.cut, c)
			return
		}
		typ := ToolCallParsed
		if c.Reason != "" {
			typ = ToolCallInvalid
		}
		r.send(Event{Type: typ, Round: round, Call: c})
	case streamparser.CallInThinking:
		r.send(Event{Type: ToolCallInThinking, Round: round, Text: pe.Text})
	}
}

// cutCall reports a call that the reply was cut off inside by cut. The
// model did not end its reply there, so the parser's reason, which tells
// the model to finish its calls, is replaced by what happened: the model
// reads that the user stopped it, as it does of a tool the user stopped.
func (r *run) cutCall(round int, cut Reason, c *Call) {
	c.Reason = notRunCut
	if cut == Cancelled {
		c.Reason = stoppedByUser
	}
	r.send(Event{Type: ToolCallCut, Round: round, Call: c, Reason: cut})
}

// parsing is how the run's replies are parsed.
func (r *run) parsing(inThinking bool) streamparser.Options {
	return streamparser.Options{InThinking: inThinking, Dialect: r.agent.cfg.Dialect, Tools: r.tools.Names(), Schemas: toolSchemas(r.tools)}
}

// toolSchemas gives the parser the tools' parameter schemas, which type
// the values of dialects that write them bare (Qwen3-Coder's).
func toolSchemas(reg *tools.Registry) map[string]json.RawMessage {
	schemas := map[string]json.RawMessage{}
	for _, t := range reg.Tools() {
		schemas[t.Name()] = t.Parameters()
	}
	return schemas
}

// ollamaCall records a call that Ollama's own parser took out of the reply.
// It is written back into the history in the trained format, since the
// model never sees Ollama's structured form in toolscope's prompts.
func (r *run) ollamaCall(round int, rep *reply, tc llm.ToolCall) {
	args := tc.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	c := &Call{Index: rep.index(-1 - len(rep.calls)), Name: tc.Name, Arguments: args, ParsedBy: r.backend}
	var text string
	c.Raw, text = trainedCall(tc.Name, args)
	rep.addCall(c, text)
	r.send(Event{Type: ToolCallParsed, Round: round, Call: c, ParsedBy: r.backend})
}

// TrainedCall writes a call in the format Qwen and Hermes models were
// trained on, tags included: how a reply keeps a call that the model's
// server parsed out of it.
func TrainedCall(name string, args json.RawMessage) string {
	_, text := trainedCall(name, args)
	return text
}

// trainedCall writes a call in the format Qwen and Hermes models were
// trained on: its payload raw, and its text, tags included.
func trainedCall(name string, args json.RawMessage) (raw, text string) {
	raw = fmt.Sprintf("\n{\"name\": %q, \"arguments\": %s}\n", name, args)
	return raw, "<tool_call>" + raw + "</tool_call>"
}

// answerCalls runs the calls in order and adds their responses to the
// conversation as one user turn. Once ctx has ended, the calls left get a
// "not run" response, so the history stays well-formed for a follow-up.
func (r *run) answerCalls(ctx context.Context, round int, rep *reply) {
	r.respond(round, rep.calls, func(c *Call) string { return r.execute(ctx, round, rep, c) },
		func(text string) string { return r.stepResponse(ctx, round, text) })
}

// refuseCalls answers calls that will not run with why, so that the
// history holds a response for every call.
func (r *run) refuseCalls(round int, calls []*Call, why string) {
	r.respond(round, calls, func(*Call) string { return errorJSON(why) }, nil)
}

// respond answers each call, and gives the responses to review (when not
// nil) before they go into the conversation.
func (r *run) respond(round int, calls []*Call, answer func(*Call) string, review func(string) string) {
	if len(calls) == 0 {
		return
	}
	results := make([]string, len(calls))
	for i, c := range calls {
		results[i] = answer(c)
	}
	text := ToolResponses(results)
	if review != nil {
		text = review(text)
	}
	r.conv.Messages = append(r.conv.Messages, llm.Message{Role: llm.RoleUser, Content: text})
	r.send(Event{Type: ToolResponse, Round: round, Text: text})
}

// execute runs one call of rep and returns the text the model reads back.
func (r *run) execute(ctx context.Context, round int, rep *reply, c *Call) string {
	if c.Reason != "" {
		return errorJSON(c.Reason)
	}
	if ctx.Err() != nil {
		return errorJSON("not run: " + stoppedByUser)
	}
	if r.agent.cfg.Stepper != nil {
		var text string
		var done bool
		if c, text, done = r.stepCall(ctx, round, rep, c); done {
			return text
		}
	}
	r.send(Event{Type: ToolStarted, Round: round, Call: c})
	if !slices.Contains(r.conv.Called, c.Name) {
		r.conv.Called = append(r.conv.Called, c.Name)
	}
	var wire wireLog
	began := time.Now()
	asks := r.newAsker(ctx, round, c)
	result, err := r.agent.call(callContext(tools.WithAsker(tools.WithRecorder(ctx, wire.add), asks)), r.tools, c, &asks.clock)
	asks.close()
	done := Event{Type: ToolFinished, Round: round, Call: c, DurationMS: millis(time.Since(began)), Wire: wire.messages()}
	if err != nil {
		done.Error, done.Stopped = err.Error(), errors.Is(err, errStopped)
		r.send(done)
		return errorJSON(err.Error())
	}
	done.Result = result
	r.send(done)
	return result
}

// call checks the arguments and runs the tool of reg, bounded by the tool
// timeout, on clock: the time its asks wait on a person does not count.
// A tool that panics or ignores its context cannot take the run
// down with it: the panic becomes an error, and a tool that never returns
// is left behind once the timeout passes.
func (a *Agent) call(ctx context.Context, reg *tools.Registry, c *Call, clock *toolClock) (string, error) {
	if err := reg.Check(c.Name, c.Arguments); err != nil {
		return "", err
	}
	t, _ := reg.Lookup(c.Name)
	ctx, stop := clock.start(ctx, a.cfg.ToolTimeout)
	ctx = tools.WithCallerTimeout(ctx)
	defer stop()
	type outcome struct {
		result string
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("tool %s crashed: %v", c.Name, p)}
			}
		}()
		result, err := t.Call(ctx, c.Arguments)
		done <- outcome{result, err}
	}()
	select {
	case o := <-done:
		// A tool that fails because ctx ended says so in Go's words
		// ("context canceled"); the stop is worded below instead.
		if o.err == nil || ctx.Err() == nil {
			return o.result, o.err
		}
	case <-ctx.Done():
		// A tool that stops when told may still be recording its last
		// messages, such as an MCP server's notifications/cancelled.
		select {
		case <-done:
		case <-time.After(toolGrace):
		}
	}
	if context.Cause(ctx) == errToolTimeout {
		return "", fmt.Errorf("tool %s did not answer within %s", c.Name, a.cfg.ToolTimeout)
	}
	return "", errStopped
}

// wireLog collects the protocol messages of one call. A tool may record
// from its own goroutines, and one that times out may go on recording.
type wireLog struct {
	mu   sync.Mutex
	msgs []tools.WireMessage
}

func (w *wireLog) add(m tools.WireMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, m)
}

func (w *wireLog) messages() []tools.WireMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.msgs)
}

// ToolResponses is the user turn that gives the model the results of its
// calls, in order: one <tool_response> block each.
func ToolResponses(results []string) string {
	blocks := make([]string, len(results))
	for i, res := range results {
		blocks[i] = "<tool_response>\n" + res + "\n</tool_response>"
	}
	return strings.Join(blocks, "\n")
}

func errorJSON(msg string) string {
	text, _ := tools.JSON(map[string]string{"error": msg}) // a string map always encodes
	return text
}

// reply is what the model wrote in one round.
type reply struct {
	content  strings.Builder // everything outside thinking, tags included
	thinking strings.Builder
	calls    []*Call
	spans    []span      // where each of calls is written in content
	indexes  map[int]int // the parser's call numbers (or -1, -2, … for Ollama's) to the reply's
	at       int         // its message's index in the conversation, once kept there
	cut      Reason      // what ended the reply before the model did; "" when nothing did
}

// span is where a call is written in a reply's content.
type span struct{ start, end int }

// addCall records a call of the reply, written as text.
func (rep *reply) addCall(c *Call, text string) {
	start := rep.content.Len()
	rep.content.WriteString(text)
	rep.calls = append(rep.calls, c)
	rep.spans = append(rep.spans, span{start, rep.content.Len()})
}

// index numbers the calls of a reply in the order they appear, whoever
// parsed them, so that front ends can key a call's events by it.
func (rep *reply) index(key int) int {
	if i, ok := rep.indexes[key]; ok {
		return i
	}
	if rep.indexes == nil {
		rep.indexes = map[int]int{}
	}
	i := len(rep.indexes)
	rep.indexes[key] = i
	return i
}

// valid returns the calls that can run; nil when none can.
func (rep *reply) valid() []*Call {
	var ok []*Call
	for _, c := range rep.calls {
		if c.Reason == "" {
			ok = append(ok, c)
		}
	}
	return ok
}

func (rep *reply) text() string { return strings.TrimSpace(rep.content.String()) }

func (rep *reply) message() llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: rep.text(), Thinking: strings.TrimSpace(rep.thinking.String())}
}
