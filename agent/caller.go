package agent

import (
	"context"
	"encoding/json"
	"errors"
)

// CallerTool is a tool that the caller runs, not the agent: an OpenAI API
// client's function. It only describes the tool to the model and checks
// its calls; an agent with Config.ReturnCalls returns its calls instead of
// calling it.
type CallerTool struct {
	ToolName        string
	ToolDescription string
	Schema          json.RawMessage // the arguments' JSON Schema; nil for any object
}

// Name implements tools.Tool.
func (t CallerTool) Name() string { return t.ToolName }

// Description implements tools.Tool.
func (t CallerTool) Description() string { return t.ToolDescription }

// Parameters implements tools.Tool.
func (t CallerTool) Parameters() json.RawMessage {
	if len(t.Schema) == 0 {
		return json.RawMessage(`{"type": "object"}`)
	}
	return t.Schema
}

// errCallerRuns is what a CallerTool answers if an agent without
// ReturnCalls is given one by mistake: the model reads that it did not run.
var errCallerRuns = errors.New("not run: this tool is run by the caller")

// Call implements tools.Tool; it never runs anything (see CallerTool).
func (t CallerTool) Call(context.Context, json.RawMessage) (string, error) {
	return "", errCallerRuns
}
