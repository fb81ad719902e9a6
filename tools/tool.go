// Package tools defines what a tool is to toolscope, keeps the registry of
// the tools a run may call, checks arguments against each tool's JSON
// Schema, and provides the built-in stub tools ([Stubs]), whose names and
// arguments' names are constants ([SendMail], [ArgTo], …) that the demo
// model calls them by. It knows nothing about models or screens.
package tools

import (
	"context"
	"encoding/json"
)

// Tool is something the model can call.
type Tool interface {
	// Name is what the model writes in a call, e.g. "send_mail".
	Name() string
	// Description tells the model when and how to use the tool.
	Description() string
	// Parameters is the JSON Schema of the arguments object.
	Parameters() json.RawMessage
	// Call runs the tool with arguments that already passed the schema
	// check. The result is the text the model reads in <tool_response>.
	// Call must return promptly once ctx ends.
	Call(ctx context.Context, args json.RawMessage) (string, error)
}
