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
	var f engineFlags
	fs := newFlagSet("chat", "[flags]", stderr, &f)
	if _, code, ok := parseArgs(fs, args, 0, stderr); !ok {
		return code
	}
	defer f.close()
	a, code, ok := f.setUpAgent(ctx, stderr)
	if !ok {
		return code
	}
	render := f.renderer(stdout, stderr)
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
