package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The schemas orderedServer lists, none with its properties in
// alphabetical order, as a server writes them on the wire.
const (
	composeSchema   = `{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to"]}`
	reorderedSchema = `{"type":"object","properties":{"z_first":{"type":"string"},"a_second":{"type":"integer"},"m_third":{"type":"boolean"}}}`
	untypedSchema   = `{"properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}`
)

// orderedServer lists one tool per page. Its tool "reorder" replaces the
// schema of its tool "compose", and the server announces the change.
func orderedServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ordered", Version: "test"}, &sdk.ServerOptions{PageSize: 1})
	unused := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("done"), nil }
	s.AddTool(&sdk.Tool{Name: "compose", InputSchema: json.RawMessage(composeSchema)}, unused)
	untyped := &sdk.Tool{Name: "untyped", InputSchema: json.RawMessage(`{"type":"object"}`)}
	s.AddTool(untyped, unused)
	// The SDK wants a type when a tool is added, but lists whatever the
	// tool holds, as servers built without it may.
	untyped.InputSchema = json.RawMessage(untypedSchema)
	s.AddTool(&sdk.Tool{Name: "reorder", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.AddTool(&sdk.Tool{Name: "compose", InputSchema: json.RawMessage(reorderedSchema)}, unused)
		return text("reordered"), nil
	})
	return s
}

func TestParametersKeepTheServersOrder(t *testing.T) {
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP, mcp.TransportSSE} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			hub := connect(t, quick, spec(t, "ordered", transport))
			changed := make(chan struct{}, 1)
			hub.OnToolsChanged(func() { changed <- struct{}{} })

			wantParameters(t, find(t, hub, "compose"), composeSchema, "to", "subject", "body")
			wantParameters(t, find(t, hub, "untyped"), `{"type":"object",`+untypedSchema[1:], "query", "limit")
			if _, err := tools.NewRegistry(hub.Tools()...); err != nil {
				t.Fatal(err)
			}

			if out, err, _ := call(t, find(t, hub, "reorder"), `{}`); err != nil || out != "reordered" {
				t.Fatalf("reorder = %q, %v", out, err)
			}
			select {
			case <-changed:
			case <-t.Context().Done():
				t.Fatal("the tools never changed")
			}
			wantParameters(t, find(t, hub, "compose"), reorderedSchema, "z_first", "a_second", "m_third")
		})
	}
}

// wantParameters checks that tool's parameters are schema, byte for byte,
// and list the properties in order.
func wantParameters(t *testing.T, tool tools.Tool, schema string, order ...string) {
	t.Helper()
	if got := string(tool.Parameters()); got != schema {
		t.Errorf("%s's parameters = %s, want the server's %s", tool.Name(), got, schema)
	}
	if got := tools.PropertyOrder(tool.Parameters()); !slices.Equal(got, order) {
		t.Errorf("%s's properties = %v, want the server's order %v", tool.Name(), got, order)
	}
}
