package mcpbridge_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpbridge"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The stdio servers these tests bridge are this test binary, started
// again as `mcpbridge.test mcp-test-server ROLE`.
const roleArg = "mcp-test-server"

// roles are the servers the test binary can play.
var roles = map[string]func(){
	// what `toolscope mcp calculator` serves
	"calculator": func() { serve(mcpserver.Calculator()) },
	// a server with a tool for each thing a bridge must pass through
	"lab": func() { serve(labServer()) },
	// a server missing its configuration, which exits at once
	"exit": func() {
		fmt.Fprintln(os.Stderr, "fatal: EXAMPLE_API_KEY is not set")
		os.Exit(3)
	},
}

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == roleArg {
		play, ok := roles[os.Args[2]]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown role %q\n", os.Args[2])
			os.Exit(2)
		}
		play()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command is the command line of a server playing role.
func command(role string) []string {
	return []string{os.Args[0], roleArg, role}
}

func serve(s *sdk.Server) {
	if err := mcpserver.Serve(context.Background(), s, mcpserver.TransportStdio, "", os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// labServer's tools each exercise one thing a bridge must pass through.
func labServer() *sdk.Server {
	// Prompts, though it has none until sprout, so that a listen may ask
	// for their list's changes.
	s := sdk.NewServer(&sdk.Implementation{Name: "lab", Version: "1.0.0"}, &sdk.ServerOptions{
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Prompts: &sdk.PromptCapabilities{ListChanged: true}},
	})
	type none struct{}
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process ID"},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "version", Description: "The protocol version the client asked for"},
		func(_ context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			return text(req.Session.InitializeParams().ProtocolVersion), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Reports progress, then waits to be cancelled, and says so on stderr"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: 1, Message: "waiting to be cancelled",
			})
			if err != nil {
				return nil, nil, err
			}
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "wait: cancelled by the client")
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool grown, and so announces a new list"},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "Added by grow"},
				func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
					return text("grown"), nil, nil
				})
			return text("grew"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "sprout", Description: "Adds the prompt sprouted, and so announces a new list of prompts"},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			s.AddPrompt(&sdk.Prompt{Name: "sprouted"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{}, nil
			})
			return text("sprouted"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Asks the client's model, by sampling, what 2 + 2 is"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{
				Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "What is 2 + 2?"}}},
				MaxTokens: 10,
			})
			if err != nil {
				return nil, nil, err
			}
			return text("the client's model said " + res.Content.(*sdk.TextContent).Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "chatter", Description: "Logs a notice, then pings the client, and says what it was answered"},
		func(ctx context.Context, req *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			if err := req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "info", Data: "chatter's notice"}); err != nil {
				return nil, nil, err
			}
			// Outside the call's context: the SDK refuses to ask a
			// 2026-07-28 client within a call, but not on its own.
			if err := req.Session.Ping(context.Background(), nil); err != nil {
				return text("ping: " + err.Error()), nil, nil
			}
			return text("ping answered"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits mid-call"},
		func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "lab: crashing on request")
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// quiet are options whose log goes nowhere.
var quiet = mcpbridge.Options{ShutdownTimeout: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}

// bridge serves a bridge to command over HTTP, both closed when the test
// ends, and returns it and its URL.
func bridge(t *testing.T, command []string, opts mcpbridge.Options) (*mcpbridge.Bridge, string) {
	t.Helper()
	b, err := mcpbridge.New(command, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { b.Close() }) // first: its sessions hold requests open
	return b, srv.URL
}

// sessionsOnly serves b's requests but those of 2026-07-28, which it
// refuses as a server that predates that revision does: clients then
// fall back to initialize, and get a session of their own.
func sessionsOnly(t *testing.T, b *mcpbridge.Bridge) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			http.Error(w, "Bad Request: no session", http.StatusBadRequest)
			return
		}
		b.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// at is the spec of a server the bridge at url serves over transport.
func at(url, transport string) mcp.ServerSpec {
	path := map[string]string{mcp.TransportHTTP: mcpbridge.PathHTTP, mcp.TransportSSE: mcpbridge.PathSSE}[transport]
	return mcp.ServerSpec{Name: "bridged", URL: url + path, Transport: transport}
}

// hubOptions are those of toolscope's MCP client in these tests.
var hubOptions = mcp.Options{HandshakeTimeout: 20 * time.Second, Logger: slog.New(slog.DiscardHandler)}

// connect connects toolscope's MCP client to spec, and expects it ready.
func connect(t *testing.T, spec mcp.ServerSpec) *mcp.Hub {
	t.Helper()
	hub, err := mcp.Connect(t.Context(), []mcp.ServerSpec{spec}, hubOptions)
	t.Cleanup(func() { hub.Close() })
	if err != nil {
		t.Fatal(err)
	}
	return hub
}

func toolNames(hub *mcp.Hub) []string {
	var names []string
	for _, tool := range hub.Tools() {
		names = append(names, tool.Name())
	}
	return names
}

func find(t *testing.T, hub *mcp.Hub, name string) tools.Tool {
	t.Helper()
	for _, tool := range hub.Tools() {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %s among %v", name, toolNames(hub))
	return nil
}

// call calls a tool and expects it to succeed.
func call(t *testing.T, hub *mcp.Hub, name, args string) string {
	t.Helper()
	out, err := find(t, hub, name).Call(t.Context(), []byte(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return out
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// logLines is a log a test can wait on.
type logLines struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLog() *logLines { return &logLines{changed: make(chan struct{})} }

func (l *logLines) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.changed)
	l.changed = make(chan struct{})
	return l.buf.Write(p)
}

// waitFor waits for a line holding want.
func (l *logLines) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		log, changed := l.buf.String(), l.changed
		l.mu.Unlock()
		if strings.Contains(log, want) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the log has no %q:\n%s", want, log)
		}
	}
}

// eventually waits for cond, which a background goroutine makes true.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
