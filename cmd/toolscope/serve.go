package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
)

func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("serve", "[flags]", stderr).withServer()
	if _, code, ok := c.parse(args, 0); !ok {
		return code
	}
	e, code, ok := c.start(ctx)
	if !ok {
		return code
	}
	defer closeMCP(e)
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: cannot listen on %s: %v (is toolscope already running? pick another --addr)\n", c.addr, err)
		return exitError
	}
	srv := server.New(server.Config{Hub: runs.NewHub(c.keepRuns), Engine: e})
	info := e.Backend().Info()
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

// closeMCP stops the engine's MCP servers, waiting until their processes
// are gone.
func closeMCP(e *engine.Engine) {
	if err := e.Close(); err != nil {
		slog.Warn("closing MCP servers", "error", err)
	}
}
