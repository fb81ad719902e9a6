// Package transcript folds a run's events into one typed value: the run,
// its rounds, their calls and results, and how it finished. Every Go
// front end that reads a run reads it through a [Transcript]: the terminal
// as the run streams, the OpenAI-compatible /v1 API, /api/query,
// recordings, and reruns and follow-ups of runs read back from the
// history. None of them switches on event types to rebuild what a round
// said or what a call did.
//
// # Folding
//
// [New] makes an empty Transcript (so does its zero value) and
// [Transcript.Add] folds one event in, in the order the run sent them, so
// a renderer can read the run so far after each event; [Fold] folds a
// whole run at once. A Transcript keeps no event: it keeps what they say,
// typed. It is not safe for concurrent use.
//
//	t := transcript.New()
//	for e := range run.Events(ctx, 0) {
//		t.Add(e)
//	}
//	fmt.Println(t.Finish.Answer)
//
// # What it holds
//
// [Transcript.Run] is the run_started payload. [Transcript.Rounds] are the
// rounds in order, each a [Round]: the input as prepared, the raw output as
// the parser read it ([Round.Raw]), its thinking and its text apart
// ([Round.Thinking], [Round.Text]), its [Call] values by index, the tool
// responses the model then read, the edits made at its pauses and the
// backend's counters. A [Call] has the state the parser left it in
// ([Parsed], [Invalid], [Cut], or [Open] while it is written), the
// arguments it ran with (after an edit at a pause, [Call.RanWith]), and
// its result or error. [Transcript.Failure] is the last error the run
// reported, and [Transcript.Finish] how it ended, nil until it has.
//
// # Conversations
//
// [Conversation] rebuilds the conversation a finished run left behind,
// which a follow-up to a run read back from the history continues, and
// [Transcript.CalledBefore] the tools called before a round, which a
// rerun keeps offering.
package transcript

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

// Transcript is a run as its events tell it so far.
type Transcript struct {
	// Run is what run_started said: the model, the tools, the dialect.
	Run *agent.RunInfo
	// Selection is what tool retrieval chose, when it chose.
	Selection *agent.Selection
	// Rounds are the run's rounds in order; Rounds[i] is round i+1.
	Rounds []*Round
	// Failure is the last error the run reported, nil when none.
	Failure *Failure
	// Finish is how the run ended; nil while it runs.
	Finish *Finish
}

// Round is one model reply and the tool runs that follow it.
type Round struct {
	Number int
	// Input is exactly what the model was given, as the round prepared
	// it; an edit at the input's pause is in Edits.
	Input *llm.Input
	// StartsInThinking: the input left the model inside <think>.
	StartsInThinking bool
	// Calls are the round's calls by index, in the order they opened.
	Calls []*Call
	// InThinking is the call marker the model wrote inside thinking when
	// the reply ended there ("" when it did not): a call not run.
	InThinking string
	// Responses are the user turns of <tool_response> blocks the model
	// read after the calls, as it read them.
	Responses []string
	// Edits are the changes made at the round's pauses (step mode).
	Edits []agent.Change
	// Stats are the backend's counters, once the reply has ended.
	Stats *agent.RoundStats

	raw, thinking, text strings.Builder
}

// The accessors of a Round take a nil one, as [Transcript.Round] returns
// for a round not started: it has no text and no calls.

// Raw is the model's raw output so far, as the parser read it, tags
// and calls included.
func (r *Round) Raw() string {
	if r == nil {
		return ""
	}
	return r.raw.String()
}

// Thinking is the round's reasoning, whoever parsed it.
func (r *Round) Thinking() string {
	if r == nil {
		return ""
	}
	return r.thinking.String()
}

// Text is the reply's text outside thinking and calls.
func (r *Round) Text() string {
	if r == nil {
		return ""
	}
	return r.text.String()
}

// Replied says the reply has ended: the backend said why it stopped.
func (r *Round) Replied() bool { return r.Stats != nil }

// Call returns the round's call of the given index, nil if none opened.
func (r *Round) Call(index int) *Call {
	if r == nil || index < 0 || index >= len(r.Calls) {
		return nil
	}
	return r.Calls[index]
}

// State is what became of a call the model wrote.
type State string

// A call's states.
const (
	Open    State = "open"    // the model is writing it
	Parsed  State = "parsed"  // it reads as a call of a known tool, with arguments
	Invalid State = "invalid" // it cannot run: Call.Reason says why, to the model
	Cut     State = "cut"     // the reply ended inside it, not the model: Call.Reason says so
)

// Call is a tool call of a round, from the marker that opened it to its
// result.
type Call struct {
	Index int
	State State
	// Name, Arguments, Raw, Reason and ParsedBy are as the parser (or the
	// model's server) gave them.
	Name      string
	Arguments json.RawMessage
	Raw       string
	Reason    string
	ParsedBy  string
	// Ran says the tool was started; RanWith holds the arguments it ran
	// with, which an edit at the call's pause may have changed.
	Ran     bool
	RanWith json.RawMessage
	// Finished says the tool returned (or its result was given at a
	// pause): Result or Error, how long it took, the protocol messages.
	Finished   bool
	Result     string
	Error      string
	DurationMS float64
	Wire       []tools.WireMessage
	// Stopped: the person stopped the run while the tool ran.
	Stopped bool
	// Faked: the result or error was typed at a pause; the tool did not run.
	Faked bool
	// Skipped: the call was skipped at its pause, and not run.
	Skipped bool
}

// Failure is an error the run reported, with what a person can do.
type Failure struct {
	Round int // 0 outside rounds
	Error string
	Fix   *llm.Fix
}

// Finish is how a run ended.
type Finish struct {
	Reason agent.Reason
	// Answer is the reply's text: the answer, or the text so far of a
	// reply cut off.
	Answer string
	Rounds int
}

// New returns an empty Transcript, ready for its run's events.
func New() *Transcript { return &Transcript{} }

// Fold folds a whole run's events.
func Fold(events []agent.Event) *Transcript {
	t := New()
	for _, e := range events {
		t.Add(e)
	}
	return t
}

// Round returns the round of the given number, nil if it has not started.
func (t *Transcript) Round(n int) *Round {
	if n < 1 || n > len(t.Rounds) {
		return nil
	}
	return t.Rounds[n-1]
}

// Last returns the last round started, nil before the first.
func (t *Transcript) Last() *Round {
	return t.Round(len(t.Rounds))
}

// Calls returns every call of the run, round after round.
func (t *Transcript) Calls() []*Call {
	var calls []*Call
	for _, r := range t.Rounds {
		calls = append(calls, r.Calls...)
	}
	return calls
}

// Raw is every round's raw output, one after another.
func (t *Transcript) Raw() string {
	var raw strings.Builder
	for _, r := range t.Rounds {
		raw.WriteString(r.Raw())
	}
	return raw.String()
}

// Usage sums the rounds' token counters.
func (t *Transcript) Usage() (prompt, output int) {
	for _, r := range t.Rounds {
		if r.Stats != nil {
			prompt += r.Stats.PromptTokens
			output += r.Stats.OutputTokens
		}
	}
	return prompt, output
}

// CalledBefore names the tools the run started before the given round,
// first called first: a conversation built from the run keeps them, so
// that tool retrieval keeps offering them.
func (t *Transcript) CalledBefore(round int) []string {
	var called []string
	for _, r := range t.Rounds[:min(max(round-1, 0), len(t.Rounds))] {
		for _, c := range r.Calls {
			if c.Ran && !slices.Contains(called, c.Name) {
				called = append(called, c.Name)
			}
		}
	}
	return called
}

// Add folds the run's next event in. An event of a type this toolscope
// does not know, or of a round that never started, changes nothing.
func (t *Transcript) Add(e agent.Event) {
	switch e.Type {
	case agent.RunStarted:
		t.Run = e.Run
	case agent.ToolsSelected:
		t.Selection = e.Selection
	case agent.RoundStarted:
		t.startRound(e)
	case agent.Error:
		t.Failure = &Failure{Round: e.Round, Error: e.Error, Fix: e.Fix}
	case agent.RunFinished:
		t.Finish = &Finish{Reason: e.Reason, Answer: e.Text, Rounds: e.Rounds}
	default:
		if r := t.Round(e.Round); r != nil {
			r.add(e)
		}
	}
}

func (t *Transcript) startRound(e agent.Event) {
	for len(t.Rounds) < e.Round {
		t.Rounds = append(t.Rounds, &Round{Number: len(t.Rounds) + 1})
	}
	if r := t.Round(e.Round); r != nil {
		r.Input, r.StartsInThinking = e.Input, e.StartsInThinking
	}
}

// add folds in an event of the round.
func (r *Round) add(e agent.Event) {
	switch e.Type {
	case agent.Token:
		r.raw.WriteString(e.Text)
	case agent.ThinkingDelta:
		r.thinking.WriteString(e.Text)
	case agent.TextDelta:
		r.text.WriteString(e.Text)
	case agent.ToolCallInThinking:
		r.InThinking = e.Text
	case agent.ToolResponse:
		r.Responses = append(r.Responses, e.Text)
	case agent.RoundFinished:
		r.Stats = e.Stats
	case agent.Edited:
		r.edited(e)
	default:
		if e.Call != nil {
			r.callEvent(e)
		}
	}
}

// callEvent folds in an event about one of the round's calls.
func (r *Round) callEvent(e agent.Event) {
	c := r.call(e.Call.Index)
	switch e.Type {
	case agent.ToolCallOpened:
		c.State, c.ParsedBy = Open, e.Call.ParsedBy
	case agent.ToolCallParsed:
		c.described(e.Call, Parsed)
	case agent.ToolCallInvalid:
		c.described(e.Call, Invalid)
	case agent.ToolCallCut:
		c.described(e.Call, Cut)
	case agent.ToolStarted:
		c.Ran, c.RanWith = true, e.Call.Arguments
	case agent.ToolFinished:
		c.Finished, c.Result, c.Error = true, e.Result, e.Error
		c.DurationMS, c.Wire, c.Stopped = e.DurationMS, e.Wire, e.Stopped
		if c.RanWith == nil {
			c.RanWith = e.Call.Arguments
		}
	}
}

// call returns the call of the given index, opening it (and any before
// it that no event opened) if need be: a call the model's server parsed
// has no opening event.
func (r *Round) call(index int) *Call {
	for len(r.Calls) <= index {
		r.Calls = append(r.Calls, &Call{Index: len(r.Calls), State: Open})
	}
	return r.Calls[index]
}

func (c *Call) described(by *agent.Call, s State) {
	c.State, c.Name, c.Arguments, c.Raw, c.Reason, c.ParsedBy = s, by.Name, by.Arguments, by.Raw, by.Reason, by.ParsedBy
}

// edited folds in a change made at one of the round's pauses.
func (r *Round) edited(e agent.Event) {
	if e.Change == nil {
		return
	}
	r.Edits = append(r.Edits, *e.Change)
	if e.Change.Call == nil {
		return
	}
	c := r.call(*e.Change.Call)
	switch e.Change.What {
	case "result", "error":
		c.Faked = true
	case "skip":
		c.Skipped = true
	}
}
