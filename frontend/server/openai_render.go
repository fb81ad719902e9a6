package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/agent"
)

// chatChunk is one `data:` frame of a streamed completion, and, with
// Message in place of Delta, the whole of a non-streamed one.
type chatChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
	// Toolscope is toolscope's extension: which run answered, and what it
	// did. A stream sends it with finish_reason.
	Toolscope *runReport `json:"toolscope,omitempty"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        *chatDelta `json:"delta,omitempty"`
	Message      *chatDelta `json:"message,omitempty"`
	FinishReason *string    `json:"finish_reason"`
}

// chatDelta is a message, or a piece of one.
type chatDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// runReport is the "toolscope" field of a completion.
type runReport struct {
	RunID  string       `json:"run_id"`
	Events string       `json:"events"` // where the page's pipeline streams from
	Reason agent.Reason `json:"reason"` // how the run ended
	// ToolCalls are the calls toolscope ran itself, in order.
	ToolCalls []ranCall `json:"tool_calls"`
	// InvalidCalls are calls the model wrote that could not be run; the
	// model read why, and tried again.
	InvalidCalls []invalidCall `json:"invalid_calls,omitempty"`
}

type ranCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type invalidCall struct {
	Raw    string `json:"raw"`
	Reason string `json:"reason"`
}

// completion turns a run's events into a chat completion. Streamed and
// non-streamed responses are both made of what it sends, so the one is
// the other accumulated.
type completion struct {
	id, model string
	created   int64
	oneCall   bool // parallel_tool_calls: false
	// returnCalls: the client runs the tools (agent.Config.ReturnCalls).
	returnCalls bool
	// send gets each delta, and the last chunk's finish reason.
	send func(d chatDelta)

	report   runReport
	calls    int
	started  bool // some content has been sent: later space is kept
	usage    chatUsage
	lastDone string // the last round's done reason
	failure  string
	finish   string
}

// consume reads one event of the run.
func (c *completion) consume(e agent.Event) {
	switch e.Type {
	case agent.ThinkingDelta:
		c.send(chatDelta{ReasoningContent: e.Text})
	case agent.TextDelta:
		c.text(e.Text)
	case agent.ToolCallParsed:
		c.toolCall(e.Call)
	case agent.ToolCallInvalid:
		c.report.InvalidCalls = append(c.report.InvalidCalls, invalidCall{Raw: e.Call.Raw, Reason: e.Call.Reason})
	case agent.ToolFinished:
		c.report.ToolCalls = append(c.report.ToolCalls, ranCall{Name: e.Call.Name, Arguments: e.Call.Arguments, Result: e.Result, Error: e.Error})
	case agent.RoundFinished:
		if e.Stats != nil {
			c.usage.PromptTokens += e.Stats.PromptTokens
			c.usage.CompletionTokens += e.Stats.OutputTokens
			c.usage.TotalTokens = c.usage.PromptTokens + c.usage.CompletionTokens
			c.lastDone = e.Stats.DoneReason
		}
	case agent.Error:
		c.failure = e.Error
	case agent.RunFinished:
		c.end(e.Reason)
	}
}

// text sends reply text, leaving out the space that opens a reply (after
// a thinking block) and would open the message.
func (c *completion) text(s string) {
	if !c.started {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return
		}
		c.started = true
	}
	c.send(chatDelta{Content: &s})
}

// toolCall sends a call for the client to run: in a ReturnCalls run only
// valid calls are parsed ones, and toolscope's own calls show in the
// report instead, once they have run.
func (c *completion) toolCall(call *agent.Call) {
	if !c.returnCalls || c.oneCall && c.calls > 0 {
		return
	}
	i := c.calls
	c.calls++
	args := string(call.Arguments)
	if args == "" {
		args = "{}"
	}
	c.send(chatDelta{ToolCalls: []chatToolCall{{Index: &i, ID: fmt.Sprintf("call_%s%d", strings.TrimPrefix(c.report.RunID, "r-"), i),
		Type: "function", Function: chatFunction{Name: call.Name, Arguments: args}}}})
}

func (c *completion) end(reason agent.Reason) {
	c.report.Reason = reason
	switch {
	case reason == agent.Returned:
		c.finish = "tool_calls"
	case reason == agent.MaxRounds || c.lastDone == "length":
		c.finish = "length"
	default:
		c.finish = "stop"
	}
}

// failed says why the run gave no answer; "" when it gave one.
func (c *completion) failed() string {
	switch c.report.Reason {
	case agent.Failed:
		return c.failure
	case agent.Cancelled:
		if c.failure != "" {
			return c.failure
		}
		return "the run was stopped before it answered (from toolscope's page, or as the server shut down)"
	}
	return ""
}

// chunk wraps choices in the envelope every frame carries.
func (c *completion) chunk(object string, choices ...chatChoice) chatChunk {
	if choices == nil {
		choices = []chatChoice{}
	}
	return chatChunk{ID: c.id, Object: object, Created: c.created, Model: c.model, Choices: choices}
}
