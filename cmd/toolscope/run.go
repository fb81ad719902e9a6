package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
)

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Traces are a server's and an eval's: a run in the terminal is read there.
	c := newCommand("run", `[flags] "request"`, stderr, engine.SettingOTLPEndpoint).withOutput()
	positional, code, ok := c.parse(args, operands{"a request", `e.g. toolscope run "What is 15 times 27?"`})
	if !ok {
		return code
	}
	if strings.TrimSpace(positional[0]) == "" {
		fmt.Fprintln(stderr, "toolscope run: the request is empty")
		return exitUsage
	}
	e, a, code, ok := c.startAgent(ctx, c.startEvery)
	if !ok {
		return code
	}
	defer closeMCP(e)
	res := a.Run(ctx, &agent.Conversation{}, positional[0], c.renderer(stdout, stderr))
	return exitCode(res)
}

// startAgent starts the engine with start (c.start, or c.startEvery for
// a command that answers once) and builds the agent of the flags'
// settings. When ok is false the command ends with code; startAgent has
// said why. Otherwise the caller closes the engine (closeMCP) when done.
func (c *command) startAgent(ctx context.Context, start func(context.Context) (*engine.Engine, int, bool)) (e *engine.Engine, a *agent.Agent, code int, ok bool) {
	c.warnUnused()
	e, code, ok = start(ctx)
	if !ok {
		return nil, nil, code, false
	}
	a, err := e.Agent(e.Settings())
	if err != nil {
		closeMCP(e)
		return nil, nil, c.report(err), false
	}
	return e, a, exitOK, true
}

// renderer returns what prints a run's events: JSON lines, or lines for
// a person.
func (c *command) renderer(stdout, stderr io.Writer) func(agent.Event) {
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return func(e agent.Event) { _ = enc.Encode(e) }
	}
	return c.terminal(stdout, stderr).Render
}

func exitCode(res agent.Result) int {
	switch res.Reason {
	case agent.Answered:
		return exitOK
	case agent.Cancelled:
		return exitInterrupted
	case agent.CutOff:
		return exitCutOff
	}
	return exitError
}
