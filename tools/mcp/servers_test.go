package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Servers built for the tests, beside toolscope's own.

var noArgs = map[string]any{"type": "object"}

func newTestServer(name string) *sdk.Server {
	return newTestServerAt(name, os.Getenv(revisionEnv))
}

// newTestServerAt makes a server that speaks revision of MCP and the
// older ones, as a server built before the newer ones would, or every
// revision the SDK knows for "".
func newTestServerAt(name, revision string) *sdk.Server {
	return sdk.NewServer(&sdk.Implementation{Name: name, Version: "test"}, revisionOptions(revision))
}

// revisionOptions are the options of a server that speaks revision and
// the older ones, or every revision the SDK knows for "".
func revisionOptions(revision string) *sdk.ServerOptions {
	opts := &sdk.ServerOptions{}
	if revision != "" {
		opts.SupportedProtocolVersions = slices.DeleteFunc(sdk.SupportedProtocolVersions(), func(v string) bool { return v > revision })
	}
	return opts
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// crashingServer's tool "crash" takes the process down mid-call.
func crashingServer() *sdk.Server {
	s := newTestServer("crashing")
	s.AddTool(&sdk.Tool{Name: "crash", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: the tool broke")
		os.Exit(2)
		return nil, nil
	})
	s.AddTool(&sdk.Tool{Name: "ok", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("fine"), nil
	})
	return s
}

// What slowServer's tool writes to stderr when it starts, and when the
// client cancels it.
const (
	startedLine   = "wait: started"
	cancelledLine = "wait: the client cancelled the call"
)

// slowServer's tool "wait" answers only when the client gives up.
func slowServer() *sdk.Server {
	s := newTestServer("slow")
	s.AddTool(&sdk.Tool{Name: "wait", InputSchema: noArgs}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, startedLine)
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, cancelledLine)
		return text("too late"), nil
	})
	return s
}

// growingServer's tool "grow" adds the tool "extra", and the server
// announces the change.
func growingServer() *sdk.Server {
	return growingServerAt(os.Getenv(revisionEnv))
}

func growingServerAt(revision string) *sdk.Server {
	s := newTestServerAt("growing", revision)
	s.AddTool(&sdk.Tool{Name: "grow", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.AddTool(&sdk.Tool{Name: "extra", Description: "Added later.", InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("extra works"), nil
		})
		return text("grown"), nil
	})
	return s
}

// contentServer answers with every kind of content.
func contentServer() *sdk.Server {
	s := newTestServer("content")
	answer := func(name string, res *sdk.CallToolResult) {
		s.AddTool(&sdk.Tool{Name: name, InputSchema: noArgs}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return res, nil
		})
	}
	answer("mixed", &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "first"},
		&sdk.TextContent{Text: "second"},
		&sdk.ImageContent{MIMEType: "image/png", Data: []byte(strings.Repeat("x", 12*1024))},
		&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
		&sdk.ResourceLink{URI: "file:///notes.txt", Name: "notes"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "embedded text"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 2048)}},
	}})
	answer("structured", &sdk.CallToolResult{StructuredContent: map[string]any{"temperature": 21}})
	answer("fail", &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such file: notes.txt"}}})
	answer("fail_silently", &sdk.CallToolResult{IsError: true})
	s.AddTool(&sdk.Tool{Name: "dangling_ref", InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"x": map[string]any{"$ref": "https://example.com/schema.json"}},
	}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("unreachable"), nil
	})
	return s
}

// handmade is a stdio server written without the SDK, as servers in
// other languages are: it pages its tool list, and its first tool's schema
// lacks the "type" it should have, and lists its properties in no
// alphabetical order. A method it does not know it answers with an
// error, or, as some servers of older revisions treat server/discover,
// ignores ("silent"), or, before initialize, exits at ("fragile").
func handmade(unknown string) {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	initialized := false
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor    string          `json:"cursor"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result any
		switch {
		case req.Method == "initialize":
			initialized = true
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "handmade", "version": "1"}}
		case req.Method == "tools/list" && req.Params.Cursor == "":
			result = map[string]any{"nextCursor": "page-2", "tools": []any{map[string]any{"name": "first", "description": "On the first page.",
				"inputSchema": json.RawMessage(`{"properties":{"q":{"type":"string"},"lang":{"type":"string"}}}`)}}}
		case req.Method == "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "second", "inputSchema": map[string]any{"type": "object"}},
				// Two arguments sent as one header: the SDK leaves it out.
				map[string]any{"name": "headers", "inputSchema": json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-Tag"},"b":{"type":"string","x-mcp-header":"x-tag"}}}`)}}}
		case req.Method == "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("%s got %s", req.Params.Name, req.Params.Arguments)}}}
		case unknown == "silent":
			fmt.Fprintf(os.Stderr, "ignoring %s\n", req.Method)
			continue
		case unknown == "fragile" && !initialized:
			fmt.Fprintf(os.Stderr, "RuntimeError: Received request before initialization was complete: %s\n", req.Method)
			os.Exit(1)
		default:
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			continue
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

// unrulyServer offers, beside one good tool, one whose name is markup and
// one whose schema nests 200 levels of JSON deep.
func unrulyServer() *sdk.Server {
	s := newTestServer("unruly")
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 100) + `{"type":"string"}` + strings.Repeat(`}}`, 100)
	for _, tool := range []*sdk.Tool{
		{Name: "lookup", InputSchema: noArgs},
		{Name: "x<svg/onload=alert(1)>", InputSchema: noArgs},
		{Name: "deep", InputSchema: json.RawMessage(deep)},
	} {
		s.AddTool(tool, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("found"), nil
		})
	}
	return s
}
