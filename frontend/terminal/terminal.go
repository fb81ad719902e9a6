// Package terminal renders a run's events for a person at a terminal:
// progress and tool lines on one stream, the answer alone on another, so
// that the answer can be piped.
package terminal

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/agent"
)

// Renderer writes events as they come. Set Out and Log before use.
type Renderer struct {
	Out io.Writer // the answer
	Log io.Writer // everything else: tools, calls, thinking, errors
	// ShowThinking streams the model's reasoning to Log.
	ShowThinking bool
	// Verbose adds the backend and a line of counters per round.
	Verbose bool

	thinking bool            // a thinking line is open on Log
	said     strings.Builder // the round's text outside tool calls
}

// Render writes one event.
func (r *Renderer) Render(e agent.Event) {
	if r.thinking && e.Type != agent.ThinkingDelta && e.Type != agent.Token {
		fmt.Fprintln(r.Log)
		r.thinking = false
	}
	switch e.Type {
	case agent.RunStarted:
		r.runStarted(e.Run)
	case agent.RoundStarted:
		r.said.Reset()
	case agent.ThinkingDelta:
		r.thought(e.Text)
	case agent.TextDelta:
		r.said.WriteString(e.Text)
	case agent.ToolCallInvalid:
		fmt.Fprintf(r.Log, "invalid tool call: %s\n  raw: %s\n", e.Call.Reason, oneLine(e.Call.Raw))
	case agent.ToolFinished:
		r.toolFinished(e)
	case agent.ToolResponse:
		// What the model wrote beside its calls is not the answer.
		if said := strings.TrimSpace(r.said.String()); said != "" {
			fmt.Fprintf(r.Log, "model: %s\n", oneLine(said))
		}
	case agent.RoundFinished:
		if r.Verbose {
			s := e.Stats
			fmt.Fprintf(r.Log, "round %d: %d prompt tokens, %d output tokens, first token after %.0f ms, done: %s\n",
				e.Round, s.PromptTokens, s.OutputTokens, s.FirstTokenMS, s.DoneReason)
		}
	case agent.Error:
		fmt.Fprintf(r.Log, "error: %s\n", printable(e.Error))
	case agent.RunFinished:
		r.runFinished(e)
	}
}

func (r *Renderer) runStarted(run *agent.RunInfo) {
	switch {
	case run.Demo:
		fmt.Fprintf(r.Log, "model: %s, the offline demo model (scripted, not a real LLM)\n", run.Model)
	case r.Verbose:
		fmt.Fprintf(r.Log, "model: %s on %s, %s mode\n", run.Model, run.Backend, run.Mode)
	}
	fmt.Fprintf(r.Log, "tools: %s\n", strings.Join(run.Tools, ", "))
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
	fmt.Fprintf(r.Log, "tool: %s(%s) = %s  (%.1fs)\n", printable(e.Call.Name), printable(string(e.Call.Arguments)), oneLine(result), e.DurationMS/1000)
}

func (r *Renderer) runFinished(e agent.Event) {
	switch e.Reason {
	case agent.Answered:
		fmt.Fprintln(r.Out, printable(e.Text))
	case agent.MaxRounds:
		fmt.Fprintf(r.Log, "stopped: the model still called tools after %d rounds (raise --max-rounds)\n", e.Rounds)
	case agent.Cancelled:
		fmt.Fprintln(r.Log, "stopped: cancelled")
	}
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
