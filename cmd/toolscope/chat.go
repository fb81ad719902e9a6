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
	a, ok := f.setUpAgent(ctx, stderr)
	if !ok {
		return exitUsage
	}
	render := f.renderer(stdout, stderr)
	conv := &agent.Conversation{}
	lines := bufio.NewScanner(stdin)
	lines.Buffer(make([]byte, 64*1024), 1<<20)
	for {
		fmt.Fprint(stderr, "> ")
		if !lines.Scan() {
			fmt.Fprintln(stderr)
			return exitOK
		}
		switch line := strings.TrimSpace(lines.Text()); line {
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
