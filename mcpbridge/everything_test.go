package mcpbridge_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// everything is the command line of the public reference server,
// @modelcontextprotocol/server-everything, as npm installs it at the root
// of the repository; the test is skipped when it is not there.
func everything(t *testing.T) []string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("server-everything is not installed; ./test.sh installs it")
	}
	return []string{bin, "stdio"}
}

func TestServerEverythingThroughTheBridge(t *testing.T) {
	_, url := bridge(t, everything(t), quiet)
	hub := connect(t, at(url, mcp.TransportHTTP))
	names := toolNames(hub)
	for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools = %v, want %s among them", names, want)
		}
	}
	if got := call(t, hub, "echo", `{"message": "hello"}`); got != "Echo: hello" {
		t.Errorf("echo = %q", got)
	}

	var (
		mu       sync.Mutex
		progress []string
	)
	ctx := tools.WithRecorder(t.Context(), func(m tools.WireMessage) {
		mu.Lock()
		defer mu.Unlock()
		if m.Direction == "received" && strings.Contains(string(m.Body), `"notifications/progress"`) {
			progress = append(progress, string(m.Body))
		}
	})
	out, err := find(t, hub, "trigger-long-running-operation").Call(ctx, []byte(`{"duration": 0.2, "steps": 2}`))
	if err != nil || !strings.Contains(out, "Long running operation completed") {
		t.Fatalf("trigger-long-running-operation = %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 2 {
		t.Errorf("progress notifications:\n%s\nwant one for each of the 2 steps", strings.Join(progress, "\n"))
	}
}

// The official TypeScript client, over each transport: the tools round
// trip, progress, the server's request for roots and its list_changed.
func TestTypeScriptClient(t *testing.T) {
	command := everything(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	log := newLog()
	opts := quiet
	opts.Logger = log.logger()
	_, url := bridge(t, command, opts)
	for i, transport := range []string{mcp.TransportHTTP, mcp.TransportSSE} {
		t.Run(transport, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "client.mjs"), at(url, transport).URL, transport)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
			}
			var seen struct {
				Server, Echo, Long                     string
				ProtocolVersion, LatestProtocolVersion string
				Tools                                  []string
				Progress                               []struct{ Progress, Total float64 }
				RootsListed, ListChanged               bool
			}
			if err := json.Unmarshal(out, &seen); err != nil {
				t.Fatalf("client.mjs printed %q: %v", out, err)
			}
			if seen.Server != "mcp-servers/everything" {
				t.Errorf("server = %q, want the bridged server's own name", seen.Server)
			}
			if transport == mcp.TransportHTTP && seen.ProtocolVersion != seen.LatestProtocolVersion {
				t.Errorf("protocol version = %q, want the client's own, %q", seen.ProtocolVersion, seen.LatestProtocolVersion)
			}
			if !slices.Contains(seen.Tools, "echo") || seen.Echo != "Echo: hello" {
				t.Errorf("tools = %v, echo = %q", seen.Tools, seen.Echo)
			}
			// The SDK hands a progress notification to its handler a tick
			// later than a response, so the last step's, which comes just
			// before the result, may go unheard; the first may not.
			if !strings.Contains(seen.Long, "Long running operation completed") || len(seen.Progress) == 0 || seen.Progress[0].Progress != 1 || seen.Progress[0].Total != 2 {
				t.Errorf("long-running operation = %q, with progress %+v", seen.Long, seen.Progress)
			}
			if !seen.RootsListed {
				t.Error("the server's roots/list request did not reach the client")
			}
			if !seen.ListChanged {
				t.Error("the server's notifications/tools/list_changed did not reach the client")
			}
			// The client's end of the session ends its server.
			why := map[string]string{mcp.TransportHTTP: "the client ended it", mcp.TransportSSE: "the client disconnected"}[transport]
			log.waitFor(t, "session "+strconv.Itoa(i+1)+" ended: "+why)
		})
	}
}
