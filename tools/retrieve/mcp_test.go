package retrieve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/tools/catalogue"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

// TestIndexFollowsMCPServer lists the whole catalogue from an MCP server
// a hundred tools a page, through the real hub, and follows its
// list_changed notifications.
func TestIndexFollowsMCPServer(t *testing.T) {
	ts, _ := labelledCatalogue(t)
	server := retrievetest.MCPServer(ts, 100)
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer h.Close()
	hub, err := mcp.Connect(context.Background(), []mcp.ServerSpec{{Name: "catalogue", URL: h.URL}}, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	if got := len(hub.Tools()); got != len(ts) {
		t.Fatalf("the hub lists %d tools, want all %d (every page)", got, len(ts))
	}

	x := retrieve.New(retrieve.Options{})
	changed := make(chan struct{}, 10)
	hub.OnToolsChanged(func() {
		x.Replace(hub.Tools())
		changed <- struct{}{}
	})
	x.Replace(hub.Tools())
	sel := x.Select(context.Background(), retrieve.Lexical, "weather forecast for Lisbon", 3, nil)
	if names := sel.Names(); len(names) == 0 || names[0] != "get_forecast" || sel.LeftOut != len(ts)-3 {
		t.Fatalf("%+v", sel)
	}

	retrievetest.AddTool(server, &catalogue.Tool{ToolName: "launch_rocket", ToolDescription: "Launch a rocket to orbit.", InputSchema: []byte(`{"type":"object"}`)})
	waitFor(t, changed, func() bool {
		return slices.Contains(x.Select(context.Background(), retrieve.Lexical, "launch the rocket", 1, nil).Names(), "launch_rocket")
	})
	server.RemoveTools("get_forecast")
	waitFor(t, changed, func() bool {
		return !slices.Contains(x.Select(context.Background(), retrieve.Lexical, "weather forecast for Lisbon", 3, nil).Names(), "get_forecast")
	})
	if x.Len() != len(ts) {
		t.Errorf("index holds %d tools, want %d", x.Len(), len(ts))
	}
}

// waitFor waits for changes until ok holds; a minute without one fails.
func waitFor(t *testing.T, changes <-chan struct{}, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-changes:
		case <-time.After(time.Minute):
			t.Fatal("no list_changed arrived")
		}
	}
}
