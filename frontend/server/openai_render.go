package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/transcript"
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

// ranCalls are the calls a run ran (or answered at a pause), in order,
// with the arguments they ran with.
func ranCalls(t *transcript.Transcript) []ranCall {
	ran := []ranCall{}
	for _, call := range t.Calls() {
		if call.Finished {
			ran = append(ran, ranCall{Name: call.Name, Arguments: call.RanWith, Result: call.Result, Error: call.Error})
		}
	}
	return ran
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

	run     transcript.Transcript // the run so far
	report  runReport
	calls   int
	started bool // some content has been sent: later space is kept
	usage   chatUsage
	finish  string
}

// consume reads one event of the run: what a client streams goes out as
// it comes, the rest is read from the transcript once the run has ended.
func (c *completion) consume(e agent.Event) {
	c.run.Add(e)
	switch e.Type {
	case agent.ThinkingDelta:
		c.send(chatDelta{ReasoningContent: e.Text})
	case agent.TextDelta:
		c.text(e.Text)
	case agent.ToolCallParsed:
		c.toolCall(e.Call)
	case agent.RunFinished:
		c.end()
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

// end reads the report, the usage and the finish reason from the run.
func (c *completion) end() {
	c.report.ToolCalls = append(c.report.ToolCalls, ranCalls(&c.run)...)
	for _, call := range c.run.Calls() {
		if call.State == transcript.Invalid {
			c.report.InvalidCalls = append(c.report.InvalidCalls, invalidCall{Raw: call.Raw, Reason: call.Reason})
		}
	}
	c.usage.PromptTokens, c.usage.CompletionTokens = c.run.Usage()
	c.usage.TotalTokens = c.usage.PromptTokens + c.usage.CompletionTokens
	reason := c.run.Finish.Reason
	c.report.Reason = reason
	switch last := c.run.Last(); {
	case reason == agent.Returned:
		c.finish = "tool_calls"
	case reason == agent.MaxRounds || last != nil && last.Stats != nil && last.Stats.DoneReason == "length":
		c.finish = "length"
	default:
		c.finish = "stop"
	}
}

// failed says why the run gave no answer; "" when it gave one.
func (c *completion) failed() string {
	var failure string
	if c.run.Failure != nil {
		failure = c.run.Failure.Error
	}
	switch c.report.Reason {
	case agent.Failed:
		return failure
	case agent.Cancelled:
		if failure != "" {
			return failure
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
