// Package terminal renders a run's events for a person at a terminal:
// progress and tool lines on one stream, the answer alone on another, so
// that the answer can be piped.
package terminal

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/transcript"
)

// Renderer writes events as they come. Set Out and Log before use.
type Renderer struct {
	Out io.Writer // the answer
	Log io.Writer // everything else: tools, calls, thinking, errors
	// ShowThinking streams the model's reasoning to Log.
	ShowThinking bool
	// Verbose adds the backend and a line of counters per round.
	Verbose bool

	thinking bool // a thinking line is open on Log
	// run is the run so far, folded: what a round said beside its calls,
	// a call's name when an edit names it only by index, and whether its
	// result was typed at a pause rather than run.
	run *transcript.Transcript
	// header is the model and tools lines last written: a chat's runs
	// share them, and they are said again only when they change.
	header string
	// demo is set while the demo model runs: its pace is a setting, so its
	// speed is labelled as scripted.
	demo bool
}

// Render writes one event.
func (r *Renderer) Render(e agent.Event) {
	if r.thinking && e.Type != agent.ThinkingDelta && e.Type != agent.Token {
		fmt.Fprintln(r.Log)
		r.thinking = false
	}
	if r.run == nil || e.Type == agent.RunStarted {
		r.run = transcript.New() // a chat renders its runs one after another
	}
	r.run.Add(e)
	switch e.Type {
	case agent.RunStarted:
		r.runStarted(e.Run)
	case agent.Edited:
		r.edited(e.Round, e.Change)
	case agent.ThinkingDelta:
		r.thought(e.Text)
	case agent.ToolCallInvalid:
		fmt.Fprintf(r.Log, "invalid tool call: %s\n  raw: %s\n", e.Call.Reason, oneLine(e.Call.Raw))
	case agent.ToolCallCut:
		how := "cut off"
		if e.Reason == agent.Cancelled {
			how = "stopped"
		}
		fmt.Fprintf(r.Log, "%s: partial tool call, not run\n  raw: %s\n", how, oneLine(e.Call.Raw))
	case agent.ToolCallInThinking:
		fmt.Fprintf(r.Log, "a tool call inside thinking was not run: the reply ended inside thinking after %s\n", printable(e.Text))
	case agent.ToolFinished:
		r.toolFinished(e)
	case agent.ElicitationRequested, agent.ElicitationAnswered, agent.ElicitationCompleted,
		agent.SamplingRequested, agent.SamplingFinished, agent.SamplingAnswered:
		r.asked(e)
	case agent.ToolResponse:
		// What the model wrote beside its calls is not the answer.
		if said := strings.TrimSpace(r.run.Round(e.Round).Text()); said != "" {
			fmt.Fprintf(r.Log, "model: %s\n", oneLine(said))
		}
	case agent.RoundFinished:
		if r.Verbose {
			r.counters(e.Round, e.Stats)
		}
	case agent.Error:
		fmt.Fprintf(r.Log, "error: %s\n", printable(describe(e.Error, e.Fix)))
	case agent.RunFinished:
		r.runFinished(e)
	}
}

func (r *Renderer) runStarted(run *agent.RunInfo) {
	r.Describe(run.Info, run.Tools)
}

// Describe says which model runs and which tools it is offered, as each
// run starts, unless the last said the same: a chat says them before its
// first request, and its runs then only when they change.
func (r *Renderer) Describe(model llm.Info, tools []string) {
	r.demo = model.Demo
	var header string
	switch {
	case model.Demo:
		header = fmt.Sprintf("model: %s, the offline demo model (scripted, not a real LLM)\n", model.Model)
	case r.Verbose:
		header = fmt.Sprintf("model: %s on %s, %s mode\n", model.Model, model.Backend, model.Mode)
	}
	header += fmt.Sprintf("tools: %s\n", strings.Join(tools, ", "))
	if header != r.header {
		fmt.Fprint(r.Log, header)
		r.header = header
	}
}

// edited says what was changed at a pause (step mode), live or in a
// replay. A faked result or error says so on its tool line instead.
func (r *Renderer) edited(round int, c *agent.Change) {
	call := "a call"
	if c.Call != nil {
		call = fmt.Sprintf("call %d", *c.Call+1)
		// An edit names the call by its index alone.
		if named := r.run.Round(round).Call(*c.Call); named != nil && named.Name != "" {
			call = printable(named.Name)
		}
	}
	switch c.What {
	case "result", "error":
		// Said on the call's tool line, which reads "faked".
	case "skip":
		fmt.Fprintf(r.Log, "skipped: %s (not run)\n", call)
	case "input":
		fmt.Fprintf(r.Log, "edited: the input of round %d\n", round)
	case "arguments":
		fmt.Fprintf(r.Log, "edited: %s's arguments\n", call)
	case "response":
		fmt.Fprintf(r.Log, "edited: the tool responses of round %d\n", round)
	default:
		// A kind of edit newer than this toolscope.
		fmt.Fprintf(r.Log, "edited: %s at the %s pause of round %d\n", printable(c.What), printable(string(c.At)), round)
	}
}

func (r *Renderer) thought(text string) {
	if !r.ShowThinking {
		return
	}
	if !r.thinking {
		text = strings.TrimLeft(text, " \n")
		if text == "" {
			return
		}
		fmt.Fprint(r.Log, "thinking: ")
		r.thinking = true
	}
	fmt.Fprint(r.Log, printable(strings.ReplaceAll(text, "\n", " ")))
}

func (r *Renderer) toolFinished(e agent.Event) {
	result := e.Result
	if e.Error != "" {
		result = "error: " + e.Error
	}
	took := fmt.Sprintf("%.1fs", e.DurationMS/1000)
	if c := r.run.Round(e.Round).Call(e.Call.Index); c != nil && c.Faked {
		took = "faked"
	}
	fmt.Fprintf(r.Log, "tool: %s(%s) = %s  (%s)\n", printable(e.Call.Name), printable(string(e.Call.Arguments)), oneLine(result), took)
}

func (r *Renderer) counters(round int, s *agent.RoundStats) {
	speed := ""
	if s.EvalMS > 0 {
		speed = fmt.Sprintf(", %.1f tok/s", float64(s.OutputTokens)/(s.EvalMS/1000))
		if r.demo {
			speed += " (scripted)"
		}
	}
	fmt.Fprintf(r.Log, "round %d: %d prompt tokens, %d output tokens%s, first token after %.0f ms, done: %s\n",
		round, s.PromptTokens, s.OutputTokens, speed, s.FirstTokenMS, s.DoneReason)
}

func (r *Renderer) runFinished(e agent.Event) {
	switch e.Reason {
	case agent.Answered:
		fmt.Fprintln(r.Out, printable(e.Text))
	case agent.MaxRounds:
		fmt.Fprintf(r.Log, "stopped: the model still called tools after %s (raise --max-rounds)\n", plural(e.Rounds, "round"))
	case agent.Cancelled:
		fmt.Fprintln(r.Log, "stopped by the user")
	case agent.CutOff:
		// The text so far is still what the model wrote; the exit code
		// and this line tell a script and a person that it is not whole.
		if e.Text != "" {
			fmt.Fprintln(r.Out, printable(e.Text))
		}
		fmt.Fprintln(r.Log, "cut off: the model reached its context or token limit")
	}
}

// Explain words an error for the command line: an *llm.Error's fix names
// the flag that applies it, on a line of its own.
func Explain(err error) string {
	var e *llm.Error
	if errors.As(err, &e) {
		return describe(e.Problem, e.Fix)
	}
	return err.Error()
}

func describe(problem string, fix *llm.Fix) string {
	if fix == nil {
		return problem
	}
	return problem + "\nnext step: " + fix.Text(flagChange)
}

// flagChange words a fix's setting as the flag that applies it.
func flagChange(setting llm.Setting, value string) string {
	flag := "--" + strings.ReplaceAll(string(setting), "_", "-")
	switch value {
	case "":
		return "run with another " + flag
	case "true", "false":
		return "run with " + flag + "=" + value // a bool flag takes no separate value
	}
	return "run with " + flag + " " + value
}

// plural counts n of a thing: "1 round", "2 rounds".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// oneLine folds a multi-line text into one line for a log.
func oneLine(s string) string {
	return printable(strings.Join(strings.Fields(s), " "))
}

// printable drops control characters but newlines and tabs. Model text
// and tool results are untrusted, and a terminal obeys escape sequences:
// they could retitle the window, or write to the clipboard.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}
