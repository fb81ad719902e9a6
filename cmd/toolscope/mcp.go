package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
)

// mcpServers are the MCP servers toolscope ships.
var mcpServers = map[string]func() *sdk.Server{
	"calculator": mcpserver.Calculator,
	"converter":  mcpserver.Converter,
	"catalogue":  catalogueServer,
}

// mcpCommand runs one of toolscope's MCP servers, for toolscope itself
// (--mcp "toolscope mcp calculator") or any other MCP host.
func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	transport := fs.String("transport", mcpserver.TransportStdio, "stdio, http (streamable HTTP at /mcp) or sse (the older HTTP+SSE transport at /sse)")
	addr := fs.String("addr", "127.0.0.1:8765", "where to listen with --transport http or sse")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolscope mcp calculator|converter|catalogue [--transport stdio|http|sse] [--addr host:port]")
		fs.PrintDefaults()
	}
	positional, code, ok := parseArgs(fs, args, operands{"a server", "calculator, converter or catalogue, e.g. toolscope mcp calculator"}, stderr)
	if !ok {
		return code
	}
	if !slices.Contains([]string{mcpserver.TransportStdio, mcpserver.TransportHTTP, mcpserver.TransportSSE}, *transport) {
		fmt.Fprintf(stderr, "toolscope mcp: unknown transport %q; use stdio, http or sse\n", *transport)
		return exitUsage
	}
	newServer, ok := mcpServers[positional[0]]
	if !ok {
		fmt.Fprintf(stderr, "toolscope mcp: unknown server %q; use calculator, converter or catalogue\n", positional[0])
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
