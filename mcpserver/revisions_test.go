package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
)

// The servers speak 2026-07-28 on stdio and streamable HTTP, and the
// revisions before it on every transport (2026-07-28 defines no SSE
// transport, so a client asking for it there gets 2025-11-25). One HTTP
// endpoint serves clients of either kind.
func TestServeRevisions(t *testing.T) {
	for _, transport := range []string{mcpserver.TransportStdio, mcpserver.TransportHTTP, mcpserver.TransportSSE} {
		for _, asked := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
			want := asked
			if transport == mcpserver.TransportSSE && asked == "2026-07-28" {
				want = "2025-11-25"
			}
			t.Run(transport+"/"+asked, func(t *testing.T) {
				t.Parallel()
				client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
				session, err := client.Connect(t.Context(), clientTransport(t, transport), &sdk.ClientSessionOptions{ProtocolVersion: asked})
				if err != nil {
					t.Fatal(err)
				}
				defer session.Close()
				if got := session.InitializeResult().ProtocolVersion; got != want {
					t.Errorf("protocol = %s, want %s", got, want)
				}
				res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "multiply", Arguments: map[string]any{"a": 6, "b": 7}})
				if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "42" {
					t.Fatalf("multiply = %+v, %v", res, err)
				}
			})
		}
	}
}

// clientTransport reaches a calculator served over transport.
func clientTransport(t *testing.T, transport string) sdk.Transport {
	if transport == mcpserver.TransportStdio {
		toServer, fromClient := io.Pipe()
		toClient, fromServer := io.Pipe()
		ctx, stop := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() {
			defer close(served)
			mcpserver.Serve(ctx, mcpserver.Calculator(), mcpserver.TransportStdio, "", toServer, fromServer)
			fromServer.Close()
		}()
		t.Cleanup(func() {
			stop()
			fromClient.Close()
			<-served
		})
		return &sdk.IOTransport{Reader: toClient, Writer: fromClient}
	}
	h, err := mcpserver.Handler(mcpserver.Calculator(), transport)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if transport == mcpserver.TransportSSE {
		return &sdk.SSEClientTransport{Endpoint: srv.URL}
	}
	return &sdk.StreamableClientTransport{Endpoint: srv.URL}
}

// A request that names 2026-07-28 in its _meta but not in its header is
// told what is missing, not asked to initialize.
func TestMissingProtocolVersionHeader(t *testing.T) {
	h, err := mcpserver.Handler(mcpserver.Calculator(), mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(answer), "Mcp-Protocol-Version header is required") {
		t.Errorf("%s %s", resp.Status, answer)
	}
}
