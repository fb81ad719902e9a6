package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/terminal"
)

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f engineFlags
	fs := newFlagSet("run", stderr, &f)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: toolscope run [flags] "request"`)
		fs.PrintDefaults()
	}
	positional, err := parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage
	case len(positional) != 1 || positional[0] == "":
		fmt.Fprintln(stderr, "toolscope run: give one request, in quotes")
		fs.Usage()
		return exitUsage
	}
	f.resolveAuto(ctx, stderr)
	a, err := f.newAgent()
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
		return exitUsage
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
