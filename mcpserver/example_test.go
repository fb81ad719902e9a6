package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
)

// connectInMemory connects a client to s in memory, as the SDK's own examples do.
func connectInMemory(ctx context.Context, s *mcp.Server) *mcp.ClientSession {
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

func ExampleCalculator() {
	ctx := context.Background()
	session := connectInMemory(ctx, mcpserver.Calculator())
	defer session.Close()

	// The schema comes from the tool's Go input type: both numbers are
	// required, and nothing else is allowed.
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		if tool.Name == "multiply" {
			schema, _ := json.Marshal(tool.InputSchema)
			fmt.Println(string(schema))
		}
	}

	// The schema's own form, an improvised one that a client passed on
	// unchecked, and a mistake the model can read.
	for _, call := range [][2]string{
		{"multiply", `{"a": 6, "b": 7}`},
		{"multiply", `{"x": "6", "y": "7"}`},
		{"divide", `{"a": 6, "b": 0}`},
	} {
		name, args := call[0], call[1]
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			log.Fatal(err)
		}
		structured, _ := json.Marshal(res.StructuredContent)
		fmt.Printf("%s(%s): %q, isError %v, structured %s\n", name, args, res.Content[0].(*mcp.TextContent).Text, res.IsError, structured)
	}
	// Output:
	// {"additionalProperties":false,"properties":{"a":{"description":"the first number","type":"number"},"b":{"description":"the second number","type":"number"}},"required":["a","b"],"type":"object"}
	// multiply({"a": 6, "b": 7}): "42", isError false, structured {"result":42}
	// multiply({"x": "6", "y": "7"}): "42", isError false, structured {"result":42}
	// divide({"a": 6, "b": 0}): "cannot divide 6 by zero", isError true, structured null
}

func ExampleConverter() {
	ctx := context.Background()
	session := connectInMemory(ctx, mcpserver.Converter())
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      "convert_length",
		Arguments: map[string]any{"value": 5, "from_unit": "km", "to_unit": "miles"},
	})
	if err != nil {
		log.Fatal(err)
	}
	// The text is what a model reads; the structured content is for
	// programs.
	structured, _ := json.Marshal(res.StructuredContent)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(string(structured))
	// Output:
	// 5 km = 3.106856 mi
	// {"result":3.106856,"result_unit":"mi","unit":"km","value":5}
}
