package main

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/internal/buildinfo"
	"github.com/toolscope/toolscope/tools/catalogue"
)

// catalogueServer serves the bundled catalogue of 1,190 tools over MCP
// (toolscope mcp catalogue): the many tools of a tools-stress eval, or of
// trying tool retrieval on a real connection. Each call answers
// "ok: <name>".
func catalogueServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "catalogue", Title: "toolscope catalogue", Version: buildinfo.Version()}, nil)
	for _, t := range catalogue.Tools() {
		ok := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok: " + t.Name()}}}
		s.AddTool(&sdk.Tool{Name: t.Name(), Description: t.Description(), InputSchema: t.Parameters()},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return ok, nil })
	}
	return s
}
