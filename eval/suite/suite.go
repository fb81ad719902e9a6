package suite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/tools/mcp"
)

// Suite is a file of eval cases, each complete: a case holds its
// suite's settings, repeat and tools unless it gives its own.
type Suite struct {
	// File is where the suite was read from, as errors name it.
	File        string
	Name        string
	Description string
	Cases       []Case
}

// Case is one thing to try, and what must happen.
type Case struct {
	ID string
	// Line is where the case starts in its suite's file.
	Line int
	// Request is the user's message; or Messages, a whole history ending
	// with the user's turn.
	Request  string
	Messages []Message
	// Settings are request settings by their JSON key (engine.Field.Key):
	// the suite's, with the case's own over them. Each was checked with
	// engine's table; one the eval itself cannot know (a mode the
	// backend lacks) is checked when the case runs.
	Settings map[string]json.RawMessage
	// Repeat is how many times the case runs, at least 1.
	Repeat int
	Tools  Tools
	Expect grade.Expect
}

// Message is one turn of a history.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// The roles a Message may have.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Tools are what a case offers the model: exactly these, so that what is
// measured is written in the suite.
type Tools struct {
	// Stubs are built-in stub tools by name (tools.Stubs).
	Stubs []string
	// MCP are servers whose tools are all offered: they are known only
	// once connected, so calls expected of them are checked when the case
	// runs, not when the suite is read.
	MCP []mcp.ServerSpec
	// Inline are tools the suite defines by their schema.
	Inline []InlineTool
}

// InlineTool is a tool a suite defines by its JSON Schema. It does
// nothing: a call returns Result.
type InlineTool struct {
	ToolName        string
	ToolDescription string
	Schema          json.RawMessage
	// Result is the JSON a call returns; {"ok": true} when the suite gives
	// none.
	Result json.RawMessage
}

// defaultResult is what an inline tool without a result returns.
var defaultResult = json.RawMessage(`{"ok": true}`)

// Name, Description, Parameters and Call make an InlineTool a tools.Tool.
func (t InlineTool) Name() string                { return t.ToolName }
func (t InlineTool) Description() string         { return t.ToolDescription }
func (t InlineTool) Parameters() json.RawMessage { return t.Schema }

// Call returns the tool's Result, whatever the arguments.
func (t InlineTool) Call(context.Context, json.RawMessage) (string, error) {
	if t.Result == nil {
		return string(defaultResult), nil
	}
	return string(t.Result), nil
}

// Error is one thing wrong with a suite, where it is written.
type Error struct {
	File string
	Line int
	// Field is the path to it: cases[2].expect.calls[0].args.to.
	Field   string
	Problem string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Problem)
}
