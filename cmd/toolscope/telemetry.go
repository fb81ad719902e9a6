package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
)

// traceRuns sets up tracing of hub's runs when --otlp-endpoint or the
// standard variables ask for it (see telemetry.Start). When ok is false
// the command ends with code; traceRuns has said why. Otherwise the
// caller calls stop before it exits, after the runs have ended, so that
// their last spans are sent.
func (c *command) traceRuns(ctx context.Context, hub *runs.Hub, stdout io.Writer) (stop func(), code int, ok bool) {
	tracer, err := telemetry.Start(ctx, c.settings.OTLPEndpoint)
	if err != nil {
		fmt.Fprintf(c.stderr, "toolscope %s: traces: %v\n", c.fs.Name(), err)
		return nil, exitUsage, false
	}
	if tracer == nil {
		return func() {}, exitOK, true
	}
	hub.Observe(tracer)
	fmt.Fprintf(stdout, "Runs are traced to %s\n", tracer.Endpoint())
	return func() {
		// Spans still queued get a few seconds to leave, not the exit's
		// whole patience.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tracer.Shutdown(ctx); err != nil {
			slog.Warn("sending the last traces", "error", err)
		}
	}, exitOK, true
}
