package main

import (
	"context"
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
	if _, err := t.registry(0); err != nil {
		fmt.Fprintf(log, "mcp: tools left out: %v\n", err)
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

// registry gathers the built-in stubs and the MCP servers' current tools,
// and says which MCP tools were left out, such as one named like a
// built-in tool: the built-in one is what the page and the docs describe.
func (t *toolFlags) registry(delay time.Duration) (*tools.Registry, error) {
	r, err := tools.NewRegistry(tools.Stubs(delay)...)
	if err != nil {
		panic(err) // the stubs are fixed and valid
	}
	if t.hub == nil {
		return r, nil
	}
	return r, r.AddAll(t.hub.Tools())
}

// tools is registry for a run: connect has reported what is left out.
func (t *toolFlags) tools(delay time.Duration) *tools.Registry {
	r, _ := t.registry(delay)
	return r
}

// mcpServers describes the MCP servers for the page.
func (t *toolFlags) mcpServers() []mcp.ServerInfo {
	if t.hub == nil {
		return nil
	}
	return t.hub.Servers()
}
