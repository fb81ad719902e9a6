package telemetry

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/transcript"
)

// Kinds of refusal: why a call the model wrote could not run, in few
// enough words to be a metric's label. The parser's reason itself quotes
// the model's output, and goes in spans only with content.
const (
	refusedUnclosed    = "unclosed"     // the reply ended inside the call
	refusedUnknownTool = "unknown_tool" // no tool of that name is offered
	refusedArguments   = "arguments"    // the arguments break the tool's schema (a /v1 client's tools)
	refusedSyntax      = "syntax"       // the call is not written as the dialect writes one
)

// argumentProblems start the problems package tools finds in arguments.
var argumentProblems = []string{"missing required argument", "unexpected argument", "argument ", "arguments are not valid JSON"}

// refusal is the kind of a refused call's reason.
func refusal(reason string) string {
	switch {
	case reason == streamparser.Unclosed:
		return refusedUnclosed
	case strings.HasPrefix(reason, "unknown tool "):
		return refusedUnknownTool
	}
	for _, p := range argumentProblems {
		if strings.HasPrefix(reason, p) {
			return refusedArguments
		}
	}
	return refusedSyntax
}

// Outcomes of a tool call.
const (
	outcomeOK      = "ok"
	outcomeError   = "error"   // the tool failed, timed out or crashed
	outcomeStopped = "stopped" // the person stopped the run while it ran
	outcomeFaked   = "faked"   // its result or error was typed at a pause; it did not run
)

// toolOutcome is how a finished call went.
func toolOutcome(c *transcript.Call) string {
	switch {
	case c.Faked:
		return outcomeFaked
	case c.Stopped:
		return outcomeStopped
	case c.Error != "":
		return outcomeError
	}
	return outcomeOK
}

// The content attributes are JSON, in the shapes the GenAI conventions
// give them: messages of typed parts.

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string          `json:"type"` // "text", "reasoning" or "tool_call"
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func encodeJSON(v any) string {
	b, _ := json.Marshal(v) // strings and raw JSON always encode
	return string(b)
}

// inputMessages are the messages a model read, but the system prompt,
// which goes in gen_ai.system_instructions.
func inputMessages(msgs []llm.Message) string {
	out := []message{}
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		var parts []part
		if m.Thinking != "" {
			parts = append(parts, part{Type: "reasoning", Content: m.Thinking})
		}
		parts = append(parts, part{Type: "text", Content: m.Content})
		out = append(out, message{Role: m.Role, Parts: parts})
	}
	return encodeJSON(out)
}

// systemInstructions is the system prompt of msgs, "" when none.
func systemInstructions(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			return encodeJSON([]part{{Type: "text", Content: m.Content}})
		}
	}
	return ""
}

// outputMessage is a reply: its thinking, its text and the calls read in
// it, with why it ended.
func outputMessage(text string, calls []part, thinking, finish string) string {
	var parts []part
	if thinking != "" {
		parts = append(parts, part{Type: "reasoning", Content: thinking})
	}
	if text != "" {
		parts = append(parts, part{Type: "text", Content: text})
	}
	parts = append(parts, calls...)
	return encodeJSON([]message{{Role: llm.RoleAssistant, Parts: parts, FinishReason: finish}})
}

// roundContent records on a round's span what the model read and wrote:
// the messages, the system prompt, in raw mode the prompt rendered, and
// the raw output as the parser read it, tags and calls included.
func (rt *runTrace) roundContent(span trace.Span, round *transcript.Round) {
	if in := round.Input; in != nil {
		span.SetAttributes(attribute.String("gen_ai.input.messages", inputMessages(in.Messages)))
		if system := systemInstructions(in.Messages); system != "" {
			span.SetAttributes(attribute.String("gen_ai.system_instructions", system))
		}
		if in.Prompt != "" {
			span.SetAttributes(attribute.String("toolscope.prompt", in.Prompt))
		}
	}
	var calls []part
	for _, c := range round.Calls {
		if c.State == transcript.Parsed {
			calls = append(calls, part{Type: "tool_call", ID: callID(round.Number, c.Index), Name: c.Name, Arguments: c.Arguments})
		}
	}
	finish := ""
	if round.Stats != nil {
		finish = round.Stats.DoneReason
	}
	span.SetAttributes(
		attribute.String("gen_ai.output.messages", outputMessage(round.Text(), calls, round.Thinking(), finish)),
		attribute.String("toolscope.output.raw", round.Raw()))
}
