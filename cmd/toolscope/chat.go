package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/agent"
)

func chatCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f engineFlags
	fs := newFlagSet("chat", stderr, &f)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: toolscope chat [flags]")
		fs.PrintDefaults()
	}
	positional, err := parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage
	case len(positional) != 0:
		fmt.Fprintln(stderr, "toolscope chat: takes no request; type them after it starts")
		return exitUsage
	}
	f.resolveAuto(ctx, stderr)
	a, err := f.newAgent()
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
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
