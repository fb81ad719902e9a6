package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpbridge"
	"github.com/toolscope/toolscope/mcpserver"
)

// mcpServers are the MCP servers toolscope ships.
var mcpServers = map[string]func() *sdk.Server{
	"calculator": mcpserver.Calculator,
	"converter":  mcpserver.Converter,
	"catalogue":  catalogueServer,
}

// mcpAddr is where MCP servers served over HTTP listen by default.
const mcpAddr = "127.0.0.1:8765"

// mcpCommand runs one of toolscope's MCP servers, for toolscope itself
// (--mcp "toolscope mcp calculator") or any other MCP host, or bridges
// another.
func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "bridge" {
		return bridgeCommand(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "logout" {
		return logoutCommand(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	transport := fs.String("transport", mcpserver.TransportStdio, "stdio, http (streamable HTTP at /mcp) or sse (the older HTTP+SSE transport at /sse)")
	addr := fs.String("addr", mcpAddr, "where to listen with --transport http or sse")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolscope mcp calculator|converter|catalogue [--transport stdio|http|sse] [--addr host:port]")
		fmt.Fprintln(stderr, "       toolscope mcp bridge [flags] -- COMMAND [ARG…]   (toolscope mcp bridge -h says more)")
		fmt.Fprintln(stderr, "       toolscope mcp logout [--data-dir DIR] NAME        (forget the OAuth sign-in kept for server NAME)")
		fs.PrintDefaults()
	}
	positional, code, ok := parseArgs(fs, args, operands{"a server", "calculator, converter or catalogue, e.g. toolscope mcp calculator; or bridge -- COMMAND to serve another over HTTP"}, stderr)
	if !ok {
		return code
	}
	if !slices.Contains([]string{mcpserver.TransportStdio, mcpserver.TransportHTTP, mcpserver.TransportSSE}, *transport) {
		fmt.Fprintf(stderr, "toolscope mcp: unknown transport %q; use stdio, http or sse\n", *transport)
		return exitUsage
	}
	newServer, ok := mcpServers[positional[0]]
	if !ok {
		fmt.Fprintf(stderr, "toolscope mcp: unknown server %q; use calculator, converter or catalogue, or bridge -- COMMAND\n", positional[0])
		return exitUsage
	}
	if *transport != mcpserver.TransportStdio {
		fmt.Fprintf(stderr, "toolscope mcp %s: serving MCP (%s transport) at the URL below; Ctrl-C stops it\n", positional[0], *transport)
	}
	if err := mcpserver.Serve(ctx, newServer(), *transport, *addr, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "toolscope mcp %s: %v\n", positional[0], err)
		return exitError
	}
	return exitOK
}

// bridgeTokenEnv holds the bridge's token when --token is not given: a
// token on the command line shows in the process list.
const bridgeTokenEnv = "TOOLSCOPE_BRIDGE_TOKEN"

// bridgeCommand serves a stdio MCP server over HTTP, a process for each
// client, so that it can run on another machine or in a container of its
// own: toolscope mcp bridge -- COMMAND [ARG…].
func bridgeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp bridge", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flagProblem words the errors
	addr := fs.String("addr", mcpAddr, "where to listen; 0.0.0.0:8765 to be reached from other machines or containers")
	transport := fs.String("transport", "", "http (streamable HTTP at /mcp) or sse (the older HTTP+SSE transport at /sse); both when not given")
	token := fs.String("token", "", "a bearer token every request must carry, as the header Authorization: Bearer TOKEN (default $"+bridgeTokenEnv+")")
	noAuth := fs.Bool("no-auth", false, "beyond loopback, let anyone who reaches the address run the tools without a token: only on a network you trust, such as compose's")
	maxSessions := fs.Int("max-sessions", mcpbridge.DefaultMaxSessions, "sessions, and so processes, at once; a client past them is refused (HTTP 503) until one ends")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "Usage: toolscope mcp bridge [--addr host:port] [--transport http|sse] [--token TOKEN | --no-auth] [--max-sessions n] -- COMMAND [ARG…]")
			fmt.Fprintln(stderr, "Serves the stdio MCP server COMMAND over streamable HTTP at /mcp and SSE at /sse, a process for each client session, and one shared by all requests of protocol 2026-07-28, which has no sessions.")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return exitOK
		}
		fmt.Fprintf(stderr, "toolscope mcp bridge: %s\n", flagProblem(fs, err))
		return exitUsage
	}
	if *maxSessions < 1 {
		fmt.Fprintln(stderr, "toolscope mcp bridge: --max-sessions must be 1 or more")
		return exitUsage
	}
	command := fs.Args()
	if len(command) == 0 {
		fmt.Fprintln(stderr, "toolscope mcp bridge needs the command of a stdio MCP server, e.g. toolscope mcp bridge -- npx -y @modelcontextprotocol/server-everything")
		return exitUsage
	}
	if *token == "" {
		*token = os.Getenv(bridgeTokenEnv)
	}
	// The children inherit the bridge's environment, and a server's tools
	// (a shell's, say) could hand the token to whoever calls them.
	os.Unsetenv(bridgeTokenEnv)
	if command[0] == "toolscope" {
		// As in --mcp: this very binary, which may not be on PATH.
		if self, err := os.Executable(); err == nil {
			command[0] = self
		}
	}
	what := strings.Join(command, " ")
	if !checkBridgeAccess(*addr, *token, *noAuth, what, stderr) {
		return exitUsage
	}
	bridge, err := mcpbridge.New(command, mcpbridge.Options{
		Transport:   *transport,
		Token:       *token,
		MaxSessions: *maxSessions,
		Logger:      slog.New(slog.NewTextHandler(stderr, nil)),
	})
	if err != nil {
		fmt.Fprintf(stderr, "toolscope mcp bridge: %v\n", err)
		return exitUsage
	}
	defer bridge.Close()
	fmt.Fprintf(stderr, "toolscope mcp bridge: serving %q over MCP at the URLs below, a process for each client session and one for all 2026-07-28 requests; Ctrl-C stops it\n", what)
	if err := serveBridge(ctx, bridge, *addr, stdout); err != nil {
		fmt.Fprintf(stderr, "toolscope mcp bridge: %v\n", err)
		return exitError
	}
	return exitOK
}

// checkBridgeAccess refuses a bridge that others can reach without a
// token, unless --no-auth says so: whoever reaches it runs the tools, and
// a web page can reach a LAN address through the user's own browser (DNS
// rebinding), which the bridge checks for on loopback only.
func checkBridgeAccess(addr, token string, noAuth bool, what string, stderr io.Writer) bool {
	switch {
	case token != "" && noAuth:
		fmt.Fprintf(stderr, "toolscope mcp bridge: a token ($%s or --token) and --no-auth contradict each other: give one\n", bridgeTokenEnv)
		return false
	case mcpbridge.Loopback(addr) || token != "":
		return true
	case !noAuth:
		fmt.Fprintf(stderr, "toolscope mcp bridge: %s can be reached from other machines, where anyone who reaches it would run the tools of %q; give a token with --token or $%s (clients then send Authorization: Bearer TOKEN), or --no-auth on a network you trust\n", addr, what, bridgeTokenEnv)
		return false
	}
	fmt.Fprintf(stderr, "toolscope mcp bridge: WARNING: --no-auth: anyone who can reach %s runs the tools of %q. Use it only on a network you trust.\n", addr, what)
	return true
}

// serveBridge serves bridge on addr until ctx ends, which ends the
// sessions first, as the bridge stopping, and only then the HTTP server,
// whose requests would end them as clients gone.
func serveBridge(ctx context.Context, bridge *mcpbridge.Bridge, addr string, stdout io.Writer) error {
	serving, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	stop := context.AfterFunc(ctx, func() {
		bridge.Close()
		stopServing()
	})
	defer stop()
	return mcpserver.ListenAndServe(serving, addr, bridge, bridge.Paths(), stdout)
}
