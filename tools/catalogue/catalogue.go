// Package catalogue is toolscope's bundled catalogue of 1,190 tools in the
// shapes real MCP servers use (GitHub, Jira, Slack, calendars, mail,
// databases, payments, clouds, …; snake_case, kebab-case and camelCase
// names; JSON Schema parameters). Tool retrieval measures itself on it,
// and an eval draws distractor tools from it: tools a model must look
// past to find the one a request wants.
//
// The file is written by `go run ./tools/retrieve/testdata/gen`. Its tools
// do nothing: a call answers "ok: <name>".
package catalogue

import (
	"context"
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/toolscope/toolscope/tools"
)

//go:embed catalogue.json
var file []byte

// Tool is a catalogue entry, in the shape of MCP's tools/list.
type Tool struct {
	ToolName        string          `json:"name"`
	ToolDescription string          `json:"description"`
	InputSchema     json.RawMessage `json:"inputSchema"`
}

// Name, Description and Parameters are the catalogue's.
func (t *Tool) Name() string                { return t.ToolName }
func (t *Tool) Description() string         { return t.ToolDescription }
func (t *Tool) Parameters() json.RawMessage { return t.InputSchema }

// Call answers "ok: <name>", whatever the arguments.
func (t *Tool) Call(context.Context, json.RawMessage) (string, error) {
	return "ok: " + t.ToolName, nil
}

// read decodes the embedded file once; it is built with the binary, so a
// failure is a broken build, which the package's test catches.
var read = sync.OnceValues(func() ([]tools.Tool, error) {
	var entries []*Tool
	if err := json.Unmarshal(file, &entries); err != nil {
		return nil, err
	}
	out := make([]tools.Tool, len(entries))
	for i, t := range entries {
		out[i] = t
	}
	return out, nil
})

// Tools returns the catalogue's tools, in the file's order. The slice is
// the caller's; the tools are shared and never change.
func Tools() []tools.Tool {
	ts, err := read()
	if err != nil {
		panic("tools/catalogue: the embedded catalogue does not decode: " + err.Error())
	}
	return append([]tools.Tool(nil), ts...)
}
