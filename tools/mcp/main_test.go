package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/askstest"
)

// The stdio servers of these tests are this test binary, started again
// with roleEnv naming what to be.
const roleEnv = "TOOLSCOPE_MCP_TEST_ROLE"

// revisionEnv, if set, names the newest revision of MCP the SDK servers
// of those roles speak.
const revisionEnv = "TOOLSCOPE_MCP_TEST_REVISION"

// servers are the roles that run an MCP server built with the SDK.
var servers = map[string]func() *sdk.Server{
	"calculator": mcpserver.Calculator,
	"converter":  mcpserver.Converter,
	"crashing":   crashingServer,
	"slow":       slowServer,
	"growing":    growingServer,
	"content":    contentServer,
	"ordered":    orderedServer,
	"meta":       metaServer,
	"asks":       askstest.Server,
	"library":    libraryServer,
}

// otherRoles are the roles of servers that misbehave or do without the
// SDK.
var otherRoles = map[string]func(){
	// exits at once, as a server missing its configuration does
	"exit": func() {
		fmt.Fprintln(os.Stderr, "fatal: EXAMPLE_API_KEY is not set")
		os.Exit(3)
	},
	// never answers, and ignores the end of its input
	"hang": func() {
		waitForOrphaning()
	},
	// a program that is no MCP server: it answers in prose, and gives up
	"garbage": func() {
		bufio.NewScanner(os.Stdin).Scan()
		fmt.Println("unknown command; type help for help")
		os.Exit(64)
	},
	"handmade": func() { handmade("error") },
	"silent":   func() { handmade("silent") },
	"fragile":  func() { handmade("fragile") },
	// an MCP server that also prints a banner on stdout
	"noisy": func() {
		fmt.Println("Calculator server v1 starting…")
		fmt.Println()
		serve(mcpserver.Calculator())
	},
}

func TestMain(m *testing.M) {
	role := os.Getenv(roleEnv)
	if role == "" {
		os.Exit(m.Run())
	}
	if newServer, ok := servers[role]; ok {
		serve(newServer())
	} else if run, ok := otherRoles[role]; ok {
		run()
	} else {
		fmt.Fprintf(os.Stderr, "unknown %s %q\n", roleEnv, role)
		os.Exit(2)
	}
	os.Exit(0)
}

func serve(s *sdk.Server) {
	if err := mcpserver.Serve(context.Background(), s, mcpserver.TransportStdio, "", os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// waitForOrphaning blocks until the test that started this process is
// gone, so that a failed test leaves no sleeper behind.
func waitForOrphaning() {
	parent := os.Getppid()
	for os.Getppid() == parent {
		time.Sleep(50 * time.Millisecond)
	}
}

// stdio is the spec of a stdio server playing role.
func stdio(role string) mcp.ServerSpec {
	return mcp.ServerSpec{Name: role, Command: os.Args[0], Env: map[string]string{roleEnv: role}}
}

// overHTTP serves s in-process over transport and returns its spec.
func overHTTP(t *testing.T, name string, s *sdk.Server, transport string) mcp.ServerSpec {
	t.Helper()
	h, err := mcpserver.Handler(s, transport)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return mcp.ServerSpec{Name: name, URL: srv.URL, Transport: transport}
}

// quick are options for tests: servers that misbehave cost little time.
var quick = mcp.Options{
	HandshakeTimeout: 10 * time.Second,
	ShutdownTimeout:  50 * time.Millisecond,
	StartWait:        100 * time.Millisecond,
	Logger:           slog.New(slog.DiscardHandler),
}

// connect connects to specs and expects every one to be ready.
func connect(t *testing.T, opts mcp.Options, specs ...mcp.ServerSpec) *mcp.Hub {
	t.Helper()
	hub, err := mcp.Connect(t.Context(), specs, opts)
	t.Cleanup(func() { hub.Close() })
	if err != nil {
		t.Fatal(err)
	}
	return hub
}
