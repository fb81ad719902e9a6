package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

func Example() {
	ctx := context.Background()

	// An MCP server to connect to: toolscope's calculator, over
	// streamable HTTP.
	handler, err := mcpserver.Handler(mcpserver.Calculator(), mcpserver.TransportHTTP)
	if err != nil {
		log.Fatal(err)
	}
	server := httptest.NewServer(handler)
	defer server.Close()

	hub, err := mcp.Connect(ctx, []mcp.ServerSpec{{Name: "calculator", URL: server.URL}}, mcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer hub.Close()

	registry, err := tools.NewRegistry(hub.Tools()...)
	if err != nil {
		log.Fatal(err)
	}
	multiply, _ := registry.Lookup("multiply")
	fmt.Println(tools.SourceOf(multiply))
	fmt.Println(multiply.Description())

	// The JSON-RPC messages of a call go to the context's recorder,
	// marked with the revision of MCP the server speaks.
	ctx = tools.WithRecorder(ctx, func(m tools.WireMessage) {
		fmt.Println(m.Protocol, m.Direction, string(m.Body))
	})
	result, err := multiply.Call(ctx, json.RawMessage(`{"a": 6, "b": 7}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(result)
	// Output:
	// mcp:calculator
	// Multiply two numbers. Example: multiply(a=6, b=7) returns 42
	// 2026-07-28 sent {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"toolscope","version":"devel"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"toolscope-1"},"name":"multiply","arguments":{"a":6,"b":7}}}
	// 2026-07-28 received {"jsonrpc":"2.0","id":4,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"calculator","title":"toolscope calculator","version":"1.0.0"}},"content":[{"type":"text","text":"42"}],"structuredContent":{"result":42},"resultType":"complete"}}
	// 42
}

func ExampleParseFlag() {
	for _, flag := range []string{
		"toolscope mcp calculator",
		"npx -y @modelcontextprotocol/server-everything",
		"http://127.0.0.1:8765/mcp",
	} {
		spec, err := mcp.ParseFlag(flag, "")
		if err != nil {
			log.Fatal(err)
		}
		if spec.URL != "" {
			fmt.Printf("%s: %s %s\n", spec.Name, spec.Transport, spec.URL)
		} else {
			fmt.Printf("%s: %s %q\n", spec.Name, spec.Transport, append([]string{spec.Command}, spec.Args...))
		}
	}
	// Output:
	// calculator: stdio ["toolscope" "mcp" "calculator"]
	// server-everything: stdio ["npx" "-y" "@modelcontextprotocol/server-everything"]
	// 127.0.0.1:8765: http http://127.0.0.1:8765/mcp
}
