package engine_test

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/tools/catalogue"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

// catalogueServer serves the test catalogue over streamable HTTP, listed
// a hundred tools a page.
func catalogueServer(t *testing.T) (server *sdk.Server, url string, n int) {
	t.Helper()
	ts, err := retrievetest.ReadCatalogue("../tools/retrieve/testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	server = retrievetest.MCPServer(ts, 100)
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(h.Close)
	return server, h.URL, len(ts)
}

// selected runs request with s and returns its tools_selected event's
// selection, nil when there was none.
func selected(t *testing.T, e *engine.Engine, s engine.Settings, request string) *agent.Selection {
	t.Helper()
	a, err := e.Agent(s)
	if err != nil {
		t.Fatal(err)
	}
	var sel *agent.Selection
	a.Run(t.Context(), &agent.Conversation{}, request, func(ev agent.Event) {
		if ev.Type == agent.ToolsSelected {
			sel = ev.Selection
		}
	})
	return sel
}

// TestManyMCPToolsAreRetrieved: with the whole catalogue connected, a run
// offers the automatic eight, or the k a request asks for, and the index
// follows the server's list_changed.
func TestManyMCPToolsAreRetrieved(t *testing.T) {
	server, url, n := catalogueServer(t)
	s := engine.Settings{Backend: engine.BackendDemo, ToolsTopK: engine.ToolsTopKAuto,
		MCP: []mcp.ServerSpec{{Name: "catalogue", URL: url}}}
	e, _ := start(t, s)
	all := len(e.Tools())
	if all < n {
		t.Fatalf("the engine has %d tools, want the catalogue's %d and the stubs", all, n)
	}

	sel := selected(t, e, s, "weather forecast for Lisbon")
	// Lexical retrieval offers fewer than k when fewer tools share a word
	// with the request, as three do here.
	if sel == nil || sel.K != engine.AutoTopK || len(sel.Tools) != 3 || sel.LeftOut != all-3 || sel.Tools[0].Name != "get_forecast" {
		t.Fatalf("auto selection = %+v", sel)
	}
	if len(sel.LeftOutNames) != agent.MaxLeftOutNames || slices.Contains(sel.LeftOutNames, "get_forecast") {
		t.Errorf("left_out_names: %d names, or get_forecast among them", len(sel.LeftOutNames))
	}
	k := 3
	if sel := selected(t, e, withTopK(s, k), "create an issue on GitHub"); sel == nil || len(sel.Tools) != k {
		t.Fatalf("k=3 selection = %+v", sel)
	}
	every := 0
	if sel := selected(t, e, withTopK(s, every), "weather forecast for Lisbon"); sel != nil {
		t.Fatalf("k=0 must offer every tool without choosing: %+v", sel)
	}

	retrievetest.AddTool(server, &catalogue.Tool{ToolName: "launch_rocket", ToolDescription: "Launch a rocket to orbit.", InputSchema: []byte(`{"type":"object"}`)})
	deadline := time.Now().Add(time.Minute)
	for {
		sel := selected(t, e, withTopK(s, k), "launch the rocket")
		if sel != nil && slices.Contains(sel.Names(), "launch_rocket") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index never took the new tool: %+v", sel)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFewToolsAreAllOffered: the automatic default leaves a small tool
// set whole, as toolscope always did.
func TestFewToolsAreAllOffered(t *testing.T) {
	s := engine.Settings{Backend: engine.BackendDemo, ToolsTopK: engine.ToolsTopKAuto}
	e, _ := start(t, s)
	if sel := selected(t, e, s, "Send an email to ann@example.com"); sel != nil {
		t.Fatalf("the stubs must all be offered: %+v", sel)
	}
}

// TestEmbedderFallbackIsReported: without the embedding model the run
// still gets its tools, ranked lexically, and the event says what to run.
func TestEmbedderFallbackIsReported(t *testing.T) {
	ollama := retrievetest.NewOllamaEmbed(t) // serves no model
	s := engine.Settings{Backend: engine.BackendDemo, OllamaHost: ollama.URL, ToolsTopK: 2, Retriever: retrieve.Embedding}
	e, _ := start(t, s)
	sel := selected(t, e, s, "Send an email to ann@example.com")
	if sel == nil || sel.Retriever != retrieve.Lexical || sel.Fallback == nil || sel.Fallback.Do != "run 'ollama pull all-minilm'" || sel.Names()[0] != "send_mail" {
		t.Fatalf("selection = %+v", sel)
	}
}

// TestOffer: Offer is what a run of the engine's settings is offered,
// with the run's own rules: every tool under ToolsTopK auto with a few
// connected, or at 0; k of them ranked by the retriever otherwise, falling
// back to lexical as a run does.
func TestOffer(t *testing.T) {
	const request = "cancel my meeting"
	for _, k := range []int{engine.ToolsTopKAuto, 0, 1} {
		s := engine.Settings{Backend: engine.BackendDemo, ToolsTopK: k}
		e, _ := start(t, s)
		if got, run := e.Offer(t.Context(), request), selected(t, e, s, request); !reflect.DeepEqual(got, run) {
			t.Errorf("--tools-top-k %d: Offer = %+v, a run's = %+v", k, got, run)
		}
	}
	e, _ := start(t, engine.Settings{Backend: engine.BackendDemo})
	if sel := e.Offer(t.Context(), request); sel != nil {
		t.Errorf("auto with %d tools offers them all, not %+v", len(e.Tools()), sel)
	}
	e, _ = start(t, engine.Settings{Backend: engine.BackendDemo, ToolsTopK: 1})
	if sel := e.Offer(t.Context(), request); sel == nil || len(sel.Tools) != 1 || sel.Tools[0].Name != "cancel_meeting" || sel.LeftOut != len(e.Tools())-1 {
		t.Fatalf("k=1: %+v", sel)
	}

	ollama := retrievetest.NewOllamaEmbed(t) // serves no model
	e, _ = start(t, engine.Settings{Backend: engine.BackendDemo, ToolsTopK: 2, OllamaHost: ollama.URL, Retriever: retrieve.Hybrid, EmbedModel: "nomic-embed-text"})
	sel := e.Offer(t.Context(), "Send an email to ann@example.com")
	if sel == nil || sel.Retriever != retrieve.Lexical || sel.Fallback == nil || sel.Fallback.Do != "run 'ollama pull nomic-embed-text'" || sel.Names()[0] != "send_mail" {
		t.Fatalf("fallback: %+v", sel)
	}
}

func withTopK(s engine.Settings, k int) engine.Settings {
	s.ToolsTopK = k
	return s
}
