// Command toolscope makes LLM tool calling visible. See docs/cli.md for
// the subcommands and their flags.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/toolscope/toolscope/internal/buildinfo"
)

const usage = `toolscope makes LLM tool calling visible.

Usage:
  toolscope run [flags] "request"   answer one request; tool lines on stderr, the answer on stdout
  toolscope chat [flags]            a conversation on stdin; /new starts over, /quit or end of input leaves
  toolscope eval [flags] SUITE…     run suites of cases against the model and grade them: a pass rate
  toolscope serve [flags]           the browser playground, on http://127.0.0.1:8000
  toolscope replay [--speed n] FILE play a recording (GET /api/runs/{id}/export) with no model
  toolscope mcp calculator|converter|catalogue [--transport stdio|http|sse] [--addr host:port]
                                    toolscope's own MCP servers
  toolscope mcp bridge [--addr host:port] [--transport http|sse] [--token TOKEN | --no-auth] -- COMMAND [ARG…]
                                    any stdio MCP server over HTTP, a process for each client
  toolscope tools list|search [flags] ["request"]
                                    the tools connected, or those a request would be offered, ranked
  toolscope compose [--out FILE] [--backend ollama|vllm] [--gpu] CONFIG
                                    a compose file: toolscope, Ollama or vLLM, and a Claude Desktop
                                    or VS Code config's MCP servers, each in a container
  toolscope pull [--ollama-host host] MODEL
                                    have Ollama pull a model, with a progress bar
  toolscope health [--addr host:port | --url URL]
                                    whether a toolscope serve answers (GET /api/health), for a container's HEALTHCHECK
  toolscope version                 the version of toolscope and of Go it was built with
  toolscope help                    this text

Run 'toolscope run -h' (or chat, serve) for the flags. Setting flags also read
TOOLSCOPE_* environment variables, as -h lists; a flag on the command line wins.
`

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitCutOff      = 3   // the reply reached the model's context or token limit
	exitInterrupted = 130 // as shells report a process ended by Ctrl-C
)

func main() {
	// Logs are for trouble; -v shows the rest.
	slog.SetLogLoggerLevel(slog.LevelWarn)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	code := run(ctx, interrupts, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command args name until it ends or ctx does. Ctrl-C
// (interrupts) ends a command too, but for chat, where it stops the run
// under way and the conversation goes on.
func run(ctx context.Context, interrupts <-chan os.Signal, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if args[0] == "chat" {
		return chatCommand(ctx, interrupts, args[1:], stdin, stdout, stderr)
	}
	ctx, cancel := untilInterrupted(ctx, interrupts)
	defer cancel()
	switch args[0] {
	case "run":
		return runCommand(ctx, args[1:], stdout, stderr)
	case "serve":
		return serveCommand(ctx, args[1:], stdin, stdout, stderr)
	case "eval":
		return evalCommand(ctx, args[1:], stdout, stderr)
	case "replay":
		return replayCommand(ctx, args[1:], stdout, stderr)
	case "mcp":
		return mcpCommand(ctx, args[1:], stdin, stdout, stderr)
	case "tools":
		return toolsCommand(ctx, args[1:], stdout, stderr)
	case "compose":
		return composeCommand(args[1:], stdout, stderr)
	case "pull":
		return pullCommand(ctx, args[1:], stderr)
	case "health":
		return healthCommand(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, version())
		return exitOK
	}
	fmt.Fprintf(stderr, "toolscope: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// untilInterrupted returns a context that also ends at the first of
// interrupts.
func untilInterrupted(ctx context.Context, interrupts <-chan os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-interrupts:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// version is toolscope's version, the one its recordings carry, then Go's
// version and the platform.
func version() string {
	return fmt.Sprintf("toolscope %s %s %s/%s", buildinfo.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
