package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/terminal"
	"github.com/toolscope/toolscope/tools"
)

// chatCommand holds a conversation on stdin. Ctrl-C (interrupts) during a
// run stops that run and the conversation goes on, the model told it was
// stopped; Ctrl-C at the prompt, or a second one while a run is stopping,
// leaves. ctx ending (SIGTERM) leaves at once.
func chatCommand(ctx context.Context, interrupts <-chan os.Signal, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("chat", "[flags]", stderr, engine.SettingOTLPEndpoint).withOutput()
	var step bool
	c.add(groupLoop, "step", "", "pause before each model call, tool call and tool response, and ask what to do (edit, fake, skip)", (*boolValue)(&step))
	if _, code, ok := c.parse(args, operands{hint: "type each request at its > prompt"}); !ok {
		return code
	}
	// The engine's MCP servers live as long as the context Start gets:
	// Ctrl-C may end it while starting, and nothing later.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		e    *engine.Engine
		a    *agent.Agent
		code int
		ok   bool
	)
	interrupted := whileWatching(interrupts, cancel, func() { e, a, code, ok = c.startAgent(ctx, c.start) })
	if ok {
		defer closeMCP(e)
	}
	switch {
	case interrupted > 0:
		return exitInterrupted
	case !ok:
		return code
	}
	var render func(agent.Event)
	if c.json {
		render = c.renderer(stdout, stderr)
	} else {
		// The model and tools at the start, as a person expects, rather
		// than at the first request.
		t := c.terminal(stdout, stderr)
		t.Describe(e.Backend().Info(), toolNames(e.Tools()))
		render = t.Render
	}
	conv := &agent.Conversation{}
	lines := readLines(stdin)
	if step {
		a = a.Stepping(terminalStepper{lines: lines, out: stderr})
	}
	// An MCP server's questions during a call are asked at this prompt.
	a = a.Answering(terminal.Answerer{Lines: lines, Out: stderr})
	for {
		fmt.Fprint(stderr, "> ")
		var line string
		select {
		case <-ctx.Done():
			fmt.Fprintln(stderr)
			return exitInterrupted
		case <-interrupts:
			fmt.Fprintln(stderr)
			return exitInterrupted
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(stderr)
				return exitOK
			}
			line = strings.TrimSpace(l)
		}
		switch line {
		case "":
		case "/quit", "/exit":
			return exitOK
		case "/new":
			conv = &agent.Conversation{}
			fmt.Fprintln(stderr, "(new conversation)")
		default:
			runCtx, stop := context.WithCancel(ctx)
			var res agent.Result
			interrupted := whileWatching(interrupts, stop, func() { res = a.Run(runCtx, conv, line, render) })
			stop()
			// A second Ctrl-C while the run was stopping: the person
			// wants out, not just the run stopped.
			if interrupted > 1 || ctx.Err() != nil {
				return exitInterrupted
			}
			if res.Reason == agent.Cancelled {
				fmt.Fprintln(stderr, "(the conversation goes on; Ctrl-C at the prompt leaves)")
			}
		}
	}
}

// whileWatching calls fn, calling cancel at each of interrupts that comes
// before fn returns, and says how many came.
func whileWatching(interrupts <-chan os.Signal, cancel func(), fn func()) (count int) {
	done := make(chan struct{})
	counted := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-interrupts:
				n++
				cancel()
			case <-done:
				counted <- n
				return
			}
		}
	}()
	fn()
	close(done)
	return <-counted
}

// readLines reads r line by line in the background, so that the prompt can
// also wait for Ctrl-C. The reader goroutine ends with the input; when the
// command returns first, the process is exiting anyway.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(r)
		scanner.Buffer(make([]byte, 64*1024), 1<<20)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
	}()
	return lines
}

// terminal is the renderer of the flags for a person at a terminal.
func (c *command) terminal(stdout, stderr io.Writer) *terminal.Renderer {
	return &terminal.Renderer{Out: stdout, Log: stderr, ShowThinking: c.showThinking, Verbose: c.verbose}
}

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}
