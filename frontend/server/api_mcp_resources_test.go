package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
)

// librarySpec serves, over streamable HTTP, an MCP server with a text
// resource, a small blob, a blob too large to show, a text that fits
// once but not twice, three contents too large together, a template and a
// prompt.
func librarySpec(t *testing.T) mcp.ServerSpec {
	s := sdk.NewServer(&sdk.Implementation{Name: "library", Version: "test"}, nil)
	resource := func(uri, mimeType, text string, blob []byte) {
		s.AddResource(&sdk.Resource{URI: uri, Name: strings.TrimPrefix(uri, "library://"), MIMEType: mimeType},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mimeType, Text: text, Blob: blob}}}, nil
			})
	}
	resource("library://notes.txt", "text/plain", "Buy milk.", nil)
	resource("library://dot.png", "image/png", "", []byte{1, 2, 3})
	resource("library://huge.bin", "application/octet-stream", "", make([]byte, 2<<20))
	resource("library://big.txt", "text/plain", strings.Repeat("x", 700<<10), nil)
	s.AddResource(&sdk.Resource{URI: "library://volumes", Name: "volumes"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			volume := &sdk.ResourceContents{URI: "library://volumes", MIMEType: "text/plain", Text: strings.Repeat("v", 600<<10)}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{volume, volume, volume}}, nil
		})
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "library://shelf/{n}", Name: "shelf"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) { return nil, nil })
	s.AddPrompt(&sdk.Prompt{Name: "greet", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["name"] + "."}}}}, nil
		})
	handler, err := mcpserver.Handler(s, mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return mcp.ServerSpec{Name: "library", URL: srv.URL + "/mcp", Transport: mcp.TransportHTTP}
}

// wantErrorSays checks that an answer is a JSON error with status whose
// message says says, which may hold quotes.
func wantErrorSays(t *testing.T, what string, resp *http.Response, body string, status int, says string) {
	t.Helper()
	var v struct{ Error string }
	if err := json.Unmarshal([]byte(body), &v); err != nil || resp.StatusCode != status || !strings.Contains(v.Error, says) {
		t.Errorf("%s: %d %s; want %d and a JSON error saying %q", what, resp.StatusCode, body, status, says)
	}
}

func readPath(server, uri string) string {
	return "/api/mcp/resources/read?" + url.Values{"server": {server}, "uri": {uri}}.Encode()
}

func TestMCPResourceRoutes(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{MCP: []mcp.ServerSpec{librarySpec(t), calculatorSpec(t)}}})

	status, v := ts.get(t, "/api/mcp/resources")
	servers, _ := v["servers"].([]any)
	if status != http.StatusOK || len(servers) != 2 {
		t.Fatalf("GET /api/mcp/resources = %d %v", status, v)
	}
	lib := servers[0].(map[string]any)
	if lib["server"] != "library" || lib["offered"] != true || len(lib["resources"].([]any)) != 5 || len(lib["templates"].([]any)) != 1 {
		t.Errorf("library's resources = %v", lib)
	}
	if calc := servers[1].(map[string]any); calc["offered"] != false || len(calc["resources"].([]any)) != 0 {
		t.Errorf("the calculator's resources = %v, want none offered", calc)
	}
	if status, v := ts.get(t, "/api/mcp/resources?server=calculator"); status != http.StatusOK || len(v["servers"].([]any)) != 1 {
		t.Errorf("GET /api/mcp/resources?server=calculator = %d %v", status, v)
	}

	status, v = ts.get(t, readPath("library", "library://notes.txt"))
	contents, _ := v["contents"].([]any)
	if status != http.StatusOK || len(contents) != 1 || contents[0].(map[string]any)["text"] != "Buy milk." {
		t.Errorf("reading notes.txt = %d %v", status, v)
	}
	status, v = ts.get(t, readPath("library", "library://dot.png"))
	if status != http.StatusOK || len(v["contents"].([]any)) != 1 {
		t.Fatalf("reading dot.png = %d %v", status, v)
	}
	dot := v["contents"].([]any)[0].(map[string]any)
	if dot["blob"] != base64.StdEncoding.EncodeToString([]byte{1, 2, 3}) || dot["size"] != 3.0 || dot["mimeType"] != "image/png" {
		t.Errorf("dot.png = %v, want its blob in base64 and its size", dot)
	}

	for _, c := range []struct {
		path   string
		status int
		says   string
	}{
		{readPath("nowhere", "library://notes.txt"), http.StatusNotFound, `no MCP server "nowhere": the servers are "library", "calculator"`},
		{readPath("library", "library://missing"), http.StatusNotFound, `MCP server "library" has no resource "library://missing"`},
		{readPath("library", "library://huge.bin"), http.StatusUnprocessableEntity, `is a blob (application/octet-stream) of 2 MiB, more than the 1 MiB toolscope shows or attaches`},
		{readPath("library", "library://volumes"), http.StatusUnprocessableEntity, `holds 3 contents of 1800 KiB in all, more than the 1 MiB toolscope shows or attaches`},
		{"/api/mcp/resources/read?server=library", http.StatusBadRequest, "?server=NAME&uri=URI"},
		{"/api/mcp/resources?server=nowhere", http.StatusNotFound, `no MCP server "nowhere"`},
		{"/api/mcp/prompts?server=nowhere", http.StatusNotFound, `no MCP server "nowhere"`},
	} {
		resp, body := ts.call(t, "GET", c.path, "", nil)
		wantErrorSays(t, "GET "+c.path, resp, body, c.status, c.says)
	}
}

func TestMCPPromptRoutes(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{MCP: []mcp.ServerSpec{librarySpec(t)}}})
	status, v := ts.get(t, "/api/mcp/prompts")
	servers, _ := v["servers"].([]any)
	if status != http.StatusOK || len(servers) != 1 {
		t.Fatalf("GET /api/mcp/prompts = %d %v", status, v)
	}
	prompts := servers[0].(map[string]any)["prompts"].([]any)
	if len(prompts) != 1 || prompts[0].(map[string]any)["name"] != "greet" {
		t.Errorf("prompts = %v", prompts)
	}

	status, v = ts.post(t, "/api/mcp/prompts/get", `{"server": "library", "name": "greet", "arguments": {"name": "Ada"}}`)
	if status != http.StatusOK || v["request"] != "Say hello to Ada." || len(v["messages"].([]any)) != 1 {
		t.Errorf("POST /api/mcp/prompts/get = %d %v", status, v)
	}
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"server": "library", "name": "greet"}`, http.StatusBadRequest, `prompt "greet" of MCP server "library" needs "name"`},
		{`{"server": "nowhere", "name": "greet"}`, http.StatusNotFound, `no MCP server "nowhere"`},
		{`{"server": "library", "name": "nonesuch"}`, http.StatusBadRequest, `MCP server "library" refused prompts/get`},
		{`{"server": "library"}`, http.StatusBadRequest, `name the prompt`},
		{`{"server": "library", "name": "greet", "args": {}}`, http.StatusBadRequest, `unknown field "args"`},
	} {
		resp, body := ts.call(t, "POST", "/api/mcp/prompts/get", c.body, nil)
		wantErrorSays(t, "POST "+c.body, resp, body, c.status, c.says)
	}
}

// A resource attached to a request is read into the user's turn, before
// the message: the run records it, and the model's input holds it.
func TestAttachedResourcesReachTheInput(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{MCP: []mcp.ServerSpec{librarySpec(t)}}})
	id, _ := ts.startRun(t, `{"message": "What should I buy?", "resources": [{"server": "library", "uri": "library://notes.txt"}]}`)
	want := "<resource server=\"library\" uri=\"library://notes.txt\" mimeType=\"text/plain\">\nBuy milk.\n</resource>\n\nWhat should I buy?"
	var started, input bool
	for _, e := range ts.events(t, id, 0) {
		switch e.event.Type {
		case agent.RunStarted:
			started = e.event.Run.Message == want
		case agent.RoundStarted:
			input = input || strings.Contains(e.event.Input.Prompt, want)
		}
	}
	if !started || !input {
		t.Errorf("the attached resource: in run_started's message %v, in the rendered prompt %v; want both to hold %q", started, input, want)
	}

	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{"message": "hi", "resources": [{"server": "library", "uri": "library://missing"}]}`, http.StatusNotFound, `"resources"[0]: MCP server "library" has no resource "library://missing"`},
		{`{"message": "hi", "resources": [{"server": "library", "uri": "library://huge.bin"}]}`, http.StatusUnprocessableEntity, `"resources"[0]: resource "library://huge.bin"`},
		{`{"message": "hi", "resources": [{"server": "nowhere", "uri": "x"}]}`, http.StatusNotFound, `"resources"[0]: no MCP server "nowhere"`},
		{`{"message": "hi", "resources": [{"uri": "x"}]}`, http.StatusBadRequest, `"resources"[0]: name the resource`},
		{`{"message": "hi", "resources": [{"server": "library", "uri": "library://big.txt"}, {"server": "library", "uri": "library://big.txt"}]}`, http.StatusUnprocessableEntity, `"resources": the 2 resources attached come to more than the 1 MiB a request may attach`},
	} {
		resp, body := ts.call(t, "POST", "/api/runs", c.body, nil)
		wantErrorSays(t, "POST /api/runs "+c.body, resp, body, c.status, c.says)
	}
}

// Without MCP servers the lists are empty, and nothing can be read.
func TestMCPRoutesWithoutServers(t *testing.T) {
	ts := start(t, setup{})
	for _, path := range []string{"/api/mcp/resources", "/api/mcp/prompts"} {
		if status, v := ts.get(t, path); status != http.StatusOK || len(v["servers"].([]any)) != 0 {
			t.Errorf("GET %s = %d %v", path, status, v)
		}
	}
	resp, body := ts.call(t, "GET", readPath("any", "x://y"), "", nil)
	wantErrorSays(t, "reading with no servers", resp, body, http.StatusNotFound, "toolscope was started with no MCP servers")
	for _, path := range []string{"/api/mcp/resources?server=any", "/api/mcp/prompts?server=any"} {
		resp, body := ts.call(t, "GET", path, "", nil)
		wantErrorSays(t, path+" with no servers", resp, body, http.StatusNotFound, `no MCP server "any": toolscope was started with no MCP servers`)
	}
}
