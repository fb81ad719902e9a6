package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/agent"
)

func chatCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCommand("chat", "[flags]", stderr).withOutput()
	if _, code, ok := c.parse(args, 0); !ok {
		return code
	}
	a, closeEngine, code, ok := c.startAgent(ctx)
	if !ok {
		return code
	}
	defer closeEngine()
	render := c.renderer(stdout, stderr)
	conv := &agent.Conversation{}
	lines := readLines(stdin)
	for {
		fmt.Fprint(stderr, "> ")
		var line string
		select {
		case <-ctx.Done(): // Ctrl-C at the prompt
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
			if res := a.Run(ctx, conv, line, render); res.Reason == agent.Cancelled {
				return exitInterrupted
			}
		}
	}
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
