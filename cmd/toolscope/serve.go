package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
)

func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f engineFlags
	fs := newFlagSet("serve", "[flags]", stderr, &f)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on")
	keep := fs.Int("keep-runs", 100, "finished runs kept in memory for viewers and /api/runs/{id}; the oldest go first")
	if _, code, ok := parseArgs(fs, args, 0, stderr); !ok {
		return code
	}
	defer f.close()
	if code, ok := f.setUp(ctx, stderr); !ok {
		return code
	}
	backend, err := f.newBackend()
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return exitUsage
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: cannot listen on %s: %v (is toolscope already running? pick another --addr)\n", *addr, err)
		return exitError
	}
	srv := server.New(server.Config{
		Hub:       runs.NewHub(*keep),
		NewAgent:  f.agentFor,
		Backend:   backend,
		Tools:     func() []tools.Tool { return f.tools(f.toolDelay).Tools() },
		MCP:       f.mcpServers,
		Dialect:   f.dialect,
		MaxRounds: f.maxRounds,
		ToolDelay: f.toolDelay,
		Think:     f.think.value,
	})
	info := backend.Info()
	fmt.Fprintf(stdout, "toolscope is serving http://%s (model %s on %s)\n", ln.Addr(), info.Model, info.Backend)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return exitError
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		slog.Warn("shutdown", "error", err)
	}
	return exitOK
}

// agentFor builds the agent of one browser run: the flags' settings, with
// what the request chose instead.
func (f *engineFlags) agentFor(o server.RunOptions) (*agent.Agent, error) {
	g := *f
	if o.Backend != "" {
		g.backend = o.Backend
	}
	if o.Model != "" {
		g.model = o.Model
	}
	if o.Mode != "" {
		g.mode = o.Mode
	}
	if o.Dialect != "" {
		g.dialect = o.Dialect
	}
	if o.MaxRounds != 0 {
		g.maxRounds = o.MaxRounds
	}
	if o.ToolDelay != nil {
		g.toolDelay = *o.ToolDelay
	}
	if o.Think != nil {
		g.think.value = o.Think
	}
	return g.newAgent()
}
