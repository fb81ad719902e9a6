package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// Stepper pauses a run in step mode (see [Config.Stepper]) and decides
// what happens next. Step is called from the run's goroutine, after a
// Paused event, and blocks the run until it returns: with the zero Edit
// to go on unchanged, or with an Edit that fits p (see [Pause.Check]);
// an Edit that does not is dropped whole. Once ctx ends, Step must return
// at once; the run then stops as cancelled, whatever Step returned.
type Stepper interface {
	Step(ctx context.Context, p Pause) Edit
}

// Point is where a run in step mode pauses. Its values are a stable
// interface, like Type's.
type Point string

// Points a run pauses at.
const (
	AtInput    Point = "input"    // before a model call: Pause.Input is what the model is about to read
	AtCall     Point = "call"     // a parsed call, before it runs: Pause.Call
	AtResponse Point = "response" // the calls' responses, before the model reads them: Pause.Response
)

// Pause is what a paused run waits on, in Paused events.
type Pause struct {
	At       Point      `json:"at"`
	Round    int        `json:"round"`
	Input    *llm.Input `json:"input,omitempty"`
	Call     *Call      `json:"call,omitempty"`
	Response string     `json:"response,omitempty"`
	// Until is when the run stops waiting and is stopped, when whoever
	// keeps it (a server's runs.Hub) gives a pause a time limit.
	Until time.Time `json:"until,omitzero"`
}

// Edit is what a Stepper changes at a pause; the zero Edit changes
// nothing. At AtInput, Input replaces the model's input: in raw mode its
// Prompt is sent as it is, in chat mode its Messages, which the
// conversation then keeps. At AtCall, Skip answers the call "not run"
// without running it, else Result or Error fake what the tool returned
// (Error wins), else Arguments replace the call's: the tool runs with
// them, and the reply in the conversation holds the edited call in the
// model's place (see [Change.NotWritten]). At AtResponse,
// Response replaces the text the model reads back. Result, Error and
// Response are pointers so that an empty one sent is told from none: an
// empty result or response is an edit, an empty error a mistake (see
// [Pause.Check]).
type Edit struct {
	Input     *llm.Input      `json:"input,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    *string         `json:"result,omitempty"`
	Error     *string         `json:"error,omitempty"`
	Skip      bool            `json:"skip,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

// EditError says why an Edit does not fit a Pause: which of its fields
// (as JSON names it) and what is wrong, for each front end to word.
type EditError struct {
	At      Point
	Field   string
	Problem string
}

func (e *EditError) Error() string {
	return fmt.Sprintf("%q %s (the run waits at %q)", e.Field, e.Problem, e.At)
}

// Check reports whether e fits p: an *EditError when it changes what p
// does not wait on, skips a call and changes it too, or changes
// something into what the run cannot use.
func (p Pause) Check(e Edit) error {
	fields := map[string]bool{"input": e.Input != nil, "arguments": e.Arguments != nil,
		"result": e.Result != nil, "error": e.Error != nil, "skip": e.Skip, "response": e.Response != nil}
	fits := map[Point][]string{AtInput: {"input"}, AtCall: {"arguments", "result", "error", "skip"}, AtResponse: {"response"}}[p.At]
	for _, name := range []string{"input", "arguments", "result", "error", "skip", "response"} {
		if fields[name] && !slices.Contains(fits, name) {
			return &EditError{At: p.At, Field: name, Problem: "does not fit this pause"}
		}
	}
	for _, other := range []string{"result", "error", "arguments"} {
		if e.Skip && fields[other] {
			// stepCall would skip and drop the other silently.
			return &EditError{At: p.At, Field: "skip", Problem: fmt.Sprintf("cannot go with %q: a skipped call does not run, so nothing of it can change", other)}
		}
	}
	switch {
	case e.Input != nil && p.Input != nil && e.Input.Mode != p.Input.Mode:
		return &EditError{At: p.At, Field: "input", Problem: fmt.Sprintf("has mode %q, but the model reads %q input", e.Input.Mode, p.Input.Mode)}
	case e.Input != nil && e.Input.Mode == llm.ModeRaw && e.Input.Prompt == "":
		return &EditError{At: p.At, Field: "input", Problem: "has no prompt"}
	case e.Input != nil && e.Input.Mode == llm.ModeChat && len(e.Input.Messages) == 0:
		return &EditError{At: p.At, Field: "input", Problem: "has no messages"}
	case e.Arguments != nil && !isObject(e.Arguments):
		return &EditError{At: p.At, Field: "arguments", Problem: "must be a JSON object"}
	case e.Arguments != nil && (e.Result != nil || e.Error != nil):
		// stepCall would fake the outcome and drop the arguments silently.
		return &EditError{At: p.At, Field: "arguments", Problem: "cannot go with a faked result or error: a faked call does not run, so its arguments change nothing"}
	case e.Error != nil && strings.TrimSpace(*e.Error) == "":
		// A blank error would read, to the model and the person, as none.
		return &EditError{At: p.At, Field: "error", Problem: "needs the error's text"}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}

// Stepping returns an Agent like a that pauses each run at every Point
// for s; nil for none. Step mode is per run, so it is set apart from the
// Config an Agent is built from.
func (a *Agent) Stepping(s Stepper) *Agent {
	cfg := a.cfg
	cfg.Stepper = s
	return &Agent{cfg: cfg}
}

// Change is what an Edited event reports: what was there at a pause and
// what replaced it, as JSON (Now is absent for a skipped call).
type Change struct {
	At   Point `json:"at"`
	Call *int  `json:"call,omitempty"` // the call's index, at AtCall
	// What names the edit: "input", "arguments", "result", "error",
	// "skip" or "response".
	What string          `json:"what"`
	Was  json.RawMessage `json:"was"`
	Now  json.RawMessage `json:"now,omitempty"`
	// NotWritten, for edited arguments, says why the conversation keeps
	// the model's own text of the call: the dialect cannot write the
	// edited call so that it reads back as it ran. Empty when the edited
	// call took the place of the model's.
	NotWritten string `json:"not_written,omitempty"`
}

// pause waits on the Stepper; without one, or once ctx has ended, it
// changes nothing.
func (r *run) pause(ctx context.Context, p Pause) Edit {
	s := r.agent.cfg.Stepper
	if s == nil || ctx.Err() != nil {
		return Edit{}
	}
	r.send(Event{Type: Paused, Round: p.Round, Pause: &p})
	e := s.Step(ctx, p)
	if ctx.Err() != nil || p.Check(e) != nil {
		return Edit{} // the Stepper should have checked it: go on unchanged
	}
	return e
}

// edited reports a change made at a pause.
func (r *run) edited(round int, c Change, startsInThinking bool) {
	r.send(Event{Type: Edited, Round: round, Change: &c, StartsInThinking: startsInThinking})
}

// stepInput pauses before a model call, and returns the input to send.
func (r *run) stepInput(ctx context.Context, round int, in llm.Input) llm.Input {
	e := r.pause(ctx, Pause{At: AtInput, Round: round, Input: &in})
	if e.Input == nil {
		return in
	}
	now := *e.Input
	now.Think, now.Options = in.Think, in.Options
	if now.Mode == llm.ModeRaw {
		now.Messages = in.Messages // the history is not parsed back out of a prompt
	} else {
		now.Prompt = ""
		r.conv.Messages = append([]llm.Message(nil), now.Messages...)
	}
	r.edited(round, Change{At: AtInput, What: "input", Was: mustJSON(in), Now: mustJSON(now)}, streamparser.OpensThinking(now.Prompt))
	return now
}

// stepCall pauses before a call of rep runs. It returns the call to run,
// or done with the text the model reads back when the call is not run.
func (r *run) stepCall(ctx context.Context, round int, rep *reply, c *Call) (run *Call, text string, done bool) {
	e := r.pause(ctx, Pause{At: AtCall, Round: round, Call: c})
	if ctx.Err() != nil {
		return c, errorJSON("not run: " + stoppedByUser), true
	}
	change := Change{At: AtCall, Call: &c.Index, Was: c.Arguments}
	switch {
	case e.Skip:
		change.What = "skip"
		r.edited(round, change, false)
		return c, errorJSON("not run: skipped by the user"), true
	case e.Error != nil || e.Result != nil:
		faked := Event{Type: ToolFinished, Round: round, Call: c}
		if e.Error != nil {
			faked.Error = *e.Error
			change.What, change.Now, text = "error", mustJSON(*e.Error), errorJSON(*e.Error)
		} else {
			faked.Result = *e.Result
			change.What, change.Now, text = "result", mustJSON(*e.Result), *e.Result
		}
		r.edited(round, change, false)
		r.send(faked)
		return c, text, true
	case e.Arguments != nil:
		changed := *c
		changed.Arguments = compact(e.Arguments)
		change.What, change.Now = "arguments", changed.Arguments
		change.NotWritten = r.writeBack(rep, c, &changed)
		r.edited(round, change, false)
		return &changed, "", false
	}
	return c, "", false
}

// stepResponse pauses before the calls' responses go back to the model,
// and returns the text to send.
func (r *run) stepResponse(ctx context.Context, round int, text string) string {
	e := r.pause(ctx, Pause{At: AtResponse, Round: round, Response: text})
	if e.Response == nil {
		return text
	}
	r.edited(round, Change{At: AtResponse, What: "response", Was: mustJSON(text), Now: mustJSON(*e.Response)}, false)
	return *e.Response
}

// writeBack puts the call that runs, now, in place of the call the model
// wrote, was, in the reply's text and so in the conversation: the model
// then reads back the call its response answers. A call Ollama or an
// OpenAI-compatible server parsed is written as the history holds such
// calls (trainedCall); any other as the dialect's writer writes it,
// between the model's own markers where they can hold it (a call in a
// list stays in its list), else as a call of its own. Either must read
// back as the calls that ran, or the text keeps the model's call, and
// writeBack says why. Arguments edited into the same values leave the
// model's text as it wrote it.
func (r *run) writeBack(rep *reply, was, now *Call) (notWritten string) {
	if sameJSON(was.Arguments, now.Arguments) {
		return ""
	}
	i := slices.Index(rep.calls, was)
	at := rep.spans[i]
	content := rep.content.String()
	var texts []string
	if was.ParsedBy == "toolscope" {
		texts = r.rewrites(content[at.start:at.end], was, now)
	} else {
		_, text := trainedCall(now.Name, now.Arguments)
		texts = []string{text}
	}
	for _, text := range texts {
		next := content[:at.start] + text + content[at.end:]
		if was.ParsedBy == "toolscope" && !r.readsAs(content, next, now) {
			continue
		}
		rep.content.Reset()
		rep.content.WriteString(next)
		shift := len(text) - (at.end - at.start)
		rep.spans[i].end += shift
		for j := i + 1; j < len(rep.spans); j++ {
			rep.spans[j].start += shift
			rep.spans[j].end += shift
		}
		// Later edits of the reply read it back against the call that ran.
		rep.calls[i] = now
		r.conv.Messages[rep.at].Content = rep.text()
		return ""
	}
	return fmt.Sprintf("written in the %s dialect, the edited call would not read back as the call that ran", r.agent.cfg.Dialect)
}

// rewrites are the ways to write now in place of the text of was, which
// the model wrote, best first: now's payload between was's markers and
// its spacing, then now written whole.
func (r *run) rewrites(old string, was, now *Call) []string {
	draft, err := streamparser.NewDraft(now.Name, now.Arguments)
	if err != nil {
		return nil // an edit's arguments are a JSON object, checked before
	}
	var b strings.Builder
	r.agent.cfg.Dialect.WriteCalls(&b, []streamparser.Draft{draft})
	whole := b.String()
	calls := r.parse(whole)
	at := strings.Index(old, was.Raw)
	if len(calls) != 1 || at < 0 {
		return []string{whole}
	}
	core := strings.TrimSpace(was.Raw)
	lead := strings.Index(was.Raw, core)
	inner := was.Raw[:lead] + strings.TrimSpace(calls[0].Raw) + was.Raw[lead+len(core):]
	return []string{old[:at] + inner + old[at+len(was.Raw):], whole}
}

// parse reads the calls in a reply's content, as the run's rounds do.
func (r *run) parse(content string) []*streamparser.Call {
	var calls []*streamparser.Call
	collect := func(e streamparser.Event) {
		if e.Kind == streamparser.CallParsed || e.Kind == streamparser.CallInvalid {
			calls = append(calls, e.Call)
		}
	}
	p, err := streamparser.New(r.parsing(false))
	if err != nil {
		return nil // not reached: the round's own parser took the run's dialect
	}
	p.Feed(content, collect)
	p.Flush(collect)
	return calls
}

// readsAs reports whether next, a reply's text with one call rewritten,
// reads as before, the text it was, with that call become now and every
// other call as it was: calls a backend parsed, written into the text as
// such, included.
func (r *run) readsAs(before, next string, now *Call) bool {
	was, got := r.parse(before), r.parse(next)
	if len(was) != len(got) {
		return false
	}
	changed := 0
	for j := range got {
		if sameCall(was[j], got[j]) {
			continue
		}
		changed++
		if got[j].Reason != "" || got[j].Name != now.Name || !sameJSON(got[j].Arguments, now.Arguments) {
			return false
		}
	}
	return changed == 1
}

// sameCall reports whether two parses of a call read the same: valid with
// the same name and arguments, or invalid with the same text.
func sameCall(a, b *streamparser.Call) bool {
	if a.Reason != "" || b.Reason != "" {
		return a.Reason != "" && b.Reason != "" && strings.TrimSpace(a.Raw) == strings.TrimSpace(b.Raw)
	}
	return a.Name == b.Name && sameJSON(a.Arguments, b.Arguments)
}

// sameJSON reports whether a and b hold the same value, however spaced;
// numbers are compared as written, since a float64 would take
// 12345678901234567890 and 12345678901234567891 for one number.
func sameJSON(a, b json.RawMessage) bool {
	x, okA := decodeNumbers(a)
	y, okB := decodeNumbers(b)
	return okA && okB && reflect.DeepEqual(x, y)
}

func decodeNumbers(data json.RawMessage) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v) == nil
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // inputs and strings always encode
	return b
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
