package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
)

func TestServeStdio(t *testing.T) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- mcpserver.Serve(t.Context(), mcpserver.Calculator(), mcpserver.TransportStdio, "", toServer, fromServer)
		fromServer.Close()
	}()

	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "5" {
		t.Fatalf("add = %+v, %v", res, err)
	}
	session.Close() // closes the server's input
	if err := <-served; err != nil {
		t.Errorf("Serve = %v once the client left, want nil", err)
	}
}

func TestServeHTTP(t *testing.T) {
	for transport, path := range map[string]string{mcpserver.TransportHTTP: "/mcp", mcpserver.TransportSSE: "/sse"} {
		t.Run(transport, func(t *testing.T) {
			ctx, stop := context.WithCancel(t.Context())
			stdout, w := io.Pipe()
			served := make(chan error, 1)
			go func() {
				served <- mcpserver.Serve(ctx, mcpserver.Converter(), transport, "127.0.0.1:0", nil, w)
			}()
			url, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			url = strings.TrimSpace(url)
			base, found := strings.CutSuffix(url, path)
			if !found {
				t.Fatalf("Serve announced %q, want a URL ending in %s", url, path)
			}

			hub, err := mcp.Connect(ctx, []mcp.ServerSpec{{Name: "converter", URL: url, Transport: transport}},
				mcp.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			tools := hub.Tools()
			if len(tools) != 4 {
				t.Fatalf("%d tools, want 4", len(tools))
			}
			out, err := tools[0].Call(ctx, json.RawMessage(`{"celsius": 0}`))
			if err != nil || out != "0 °C = 32 °F" {
				t.Errorf("%s = %q, %v", tools[0].Name(), out, err)
			}

			// Anywhere else, the server says where it answers.
			resp, err := http.Get(base + "/elsewhere")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "this MCP server answers at "+path) {
				t.Errorf("GET /elsewhere: %s %q", resp.Status, body)
			}

			hub.Close()
			stop()
			if err := <-served; err != nil {
				t.Errorf("Serve = %v once its context ended, want nil", err)
			}
		})
	}
}

func TestServeErrors(t *testing.T) {
	if err := mcpserver.Serve(t.Context(), mcpserver.Calculator(), "websocket", "127.0.0.1:0", nil, io.Discard); err == nil || !strings.Contains(err.Error(), `unknown transport "websocket"`) {
		t.Errorf("Serve over websocket = %v", err)
	}
	if err := mcpserver.Serve(t.Context(), mcpserver.Calculator(), mcpserver.TransportHTTP, "127.0.0.1:no-port", nil, io.Discard); err == nil {
		t.Error("Serve listened on a port that is not a number")
	}
}
