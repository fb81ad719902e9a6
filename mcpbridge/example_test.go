package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/toolscope/toolscope/mcpbridge"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

func Example() {
	ctx := context.Background()

	// A bridge to a stdio MCP server: toolscope's calculator, which
	// `toolscope mcp calculator` serves, and this example's binary plays.
	bridge, err := mcpbridge.New(command("calculator"), mcpbridge.Options{})
	if err != nil {
		log.Fatal(err)
	}
	server := httptest.NewServer(bridge)
	defer server.Close()
	defer bridge.Close() // first: its sessions hold requests open

	// Any MCP client reaches it over HTTP, and gets a calculator of its
	// own; here, toolscope's client over streamable HTTP.
	hub, err := mcp.Connect(ctx, []mcp.ServerSpec{{Name: "calculator", URL: server.URL + mcpbridge.PathHTTP}}, mcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer hub.Close()

	registry, err := tools.NewRegistry(hub.Tools()...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(registry.Names())
	multiply, _ := registry.Lookup("multiply")
	result, err := multiply.Call(ctx, []byte(`{"a": 6, "b": 7}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(result)
	// Output:
	// [add divide multiply power round_number sqrt subtract]
	// 42
}
