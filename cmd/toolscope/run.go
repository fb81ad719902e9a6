package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/terminal"
)

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f engineFlags
	fs := newFlagSet("run", `[flags] "request"`, stderr, &f)
	positional, code, ok := parseArgs(fs, args, 1, stderr)
	if !ok {
		return code
	}
	defer f.close()
	a, code, ok := f.setUpAgent(ctx, stderr)
	if !ok {
		return code
	}
	res := a.Run(ctx, &agent.Conversation{}, positional[0], f.renderer(stdout, stderr))
	return exitCode(res)
}

// renderer returns what prints a run's events: JSON lines, or lines for
// a person.
func (f *engineFlags) renderer(stdout, stderr io.Writer) func(agent.Event) {
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return func(e agent.Event) { _ = enc.Encode(e) }
	}
	r := &terminal.Renderer{Out: stdout, Log: stderr, ShowThinking: f.showThinking, Verbose: f.verbose}
	return r.Render
}

func exitCode(res agent.Result) int {
	switch res.Reason {
	case agent.Answered:
		return exitOK
	case agent.Cancelled:
		return exitInterrupted
	}
	return exitError
}
