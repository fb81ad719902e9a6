package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// toolFlags choose where tools come from besides the built-in stubs.
type toolFlags struct {
	mcp        []mcp.ServerSpec
	mcpConfig  string
	mcpTimeout time.Duration
	// hub holds the MCP servers once connect has run.
	hub *mcp.Hub
}

func (t *toolFlags) register(fs *flag.FlagSet) {
	fs.Func("mcp", "an MCP server: a command to start over stdio, or a streamable HTTP URL (repeatable)", func(v string) error {
		return t.addServer(v, "")
	})
	fs.Func("mcp-sse", "an MCP server's URL on the older HTTP+SSE transport (repeatable)", func(v string) error {
		return t.addServer(v, mcp.TransportSSE)
	})
	fs.StringVar(&t.mcpConfig, "mcp-config", "", "a JSON file of MCP servers in the mcpServers format of Claude Desktop")
	fs.DurationVar(&t.mcpTimeout, "mcp-timeout", 30*time.Second, "longest an MCP tool call may take; then it is cancelled on the server too")
}

func (t *toolFlags) addServer(value, transport string) error {
	spec, err := mcp.ParseFlag(value, transport)
	if err != nil {
		return err
	}
	t.mcp = append(t.mcp, spec)
	return nil
}

// connect starts or reaches the MCP servers the flags name and says on log
// which are ready and which failed. A failed server is reported, not
// fatal: the others keep working. Only a broken config file is an error.
func (t *toolFlags) connect(ctx context.Context, log io.Writer) error {
	specs := t.mcp
	if t.mcpConfig != "" {
		more, err := mcp.LoadConfig(t.mcpConfig)
		if err != nil {
			return err
		}
		specs = append(specs, more...)
	}
	if len(specs) == 0 {
		return nil
	}
	t.hub, _ = mcp.Connect(ctx, specs, mcp.Options{Timeout: t.mcpTimeout})
	for _, s := range t.hub.Servers() {
		switch s.State {
		case mcp.StateReady:
			fmt.Fprintf(log, "mcp: %s - %s\n", s.Target, strings.Join(s.Tools, ", "))
		default:
			fmt.Fprintf(log, "mcp: %s failed: %s\n", s.Target, s.Error)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(log, "mcp: %s: %s\n", s.Name, w)
		}
	}
	builtin := map[string]bool{}
	for _, tool := range tools.Stubs(0) {
		builtin[tool.Name()] = true
	}
	for _, tool := range t.hub.Tools() {
		if builtin[tool.Name()] {
			fmt.Fprintf(log, "mcp: %s: tool %s is left out: a built-in tool has that name\n", tools.SourceOf(tool), tool.Name())
		}
	}
	return nil
}

// close stops the MCP servers, waiting until their processes are gone.
func (t *toolFlags) close() {
	if t.hub != nil {
		if err := t.hub.Close(); err != nil {
			slog.Warn("closing MCP servers", "error", err)
		}
	}
}

// registry gathers the built-in stubs and the MCP servers' current tools.
// An MCP tool named like a built-in one is left out: the built-in one is
// what the page and the docs describe.
func (t *toolFlags) registry(delay time.Duration) *tools.Registry {
	r, err := tools.NewRegistry(tools.Stubs(delay)...)
	if err != nil {
		panic(err) // the stubs are fixed and valid
	}
	if t.hub == nil {
		return r
	}
	var clashes []error
	for _, tool := range t.hub.Tools() {
		if err := r.Add(tool); err != nil {
			clashes = append(clashes, err)
		}
	}
	if len(clashes) > 0 {
		slog.Debug("MCP tools left out", "error", errors.Join(clashes...)) // connect warned once
	}
	return r
}

// mcpServers describes the MCP servers for the page.
func (t *toolFlags) mcpServers() []mcp.ServerInfo {
	if t.hub == nil {
		return nil
	}
	return t.hub.Servers()
}
