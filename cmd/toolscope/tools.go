package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve"
)

const toolsUsage = `Usage:
  toolscope tools list [flags]              every tool, with where it comes from
  toolscope tools search [flags] "request"  the tools a run would offer for the request: ranked, with scores, when --tools-top-k chooses
`

// toolsCommand lists the tools the flags connect, or ranks them for a
// request as tool retrieval would: for tuning descriptions without a
// model.
func toolsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, toolsUsage)
		return exitUsage
	}
	switch args[0] {
	case "list":
		return toolsList(ctx, args[1:], stdout, stderr)
	case "search":
		return toolsSearch(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, toolsUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "toolscope tools: unknown command %q\n\n%s", args[0], toolsUsage)
	return exitUsage
}

func toolsList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newToolsCommand("tools list", "[flags]", stderr, engine.SettingMCPConfig)
	if _, code, ok := c.parse(args, operands{}); !ok {
		return code
	}
	e, code, ok := c.toolsEngine(ctx)
	if !ok {
		return code
	}
	defer closeMCP(e)
	printTools(stdout, e.Tools())
	printServers(stdout, e.MCPServers())
	return exitOK
}

// printServers lists the MCP servers the tools come from, with the
// revision of the protocol each speaks, after a blank line; nothing
// without servers.
func printServers(w io.Writer, servers []mcp.ServerInfo) {
	if len(servers) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MCP SERVER\tPROTOCOL\tTRANSPORT\tTARGET")
	for _, s := range servers {
		protocol := s.Protocol
		if protocol == "" {
			protocol = string(s.State) // not connected: no revision was agreed on
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, protocol, s.Transport, s.Target)
	}
	tw.Flush()
}

// toolsSearch shows what a run with the same tool flags would be offered
// for a request, asking the engine as a run does: the same defaults, the
// same auto rule.
func toolsSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newToolsCommand("tools search", `[flags] "request"`, stderr,
		engine.SettingMCPConfig, engine.SettingOllamaHost, engine.SettingToolsTopK, engine.SettingRetriever, engine.SettingEmbedModel)
	// Kept so that scripts written for it still run; unlisted, since a
	// search now takes a run's own flag.
	c.alias("k", engine.SettingToolsTopK)
	positional, code, ok := c.parse(args, operands{"a request", `e.g. toolscope tools search "cancel my meeting"`})
	if !ok {
		return code
	}
	e, code, ok := c.toolsEngine(ctx)
	if !ok {
		return code
	}
	defer closeMCP(e)
	sel := e.Offer(ctx, positional[0])
	if sel == nil {
		printTools(stdout, e.Tools())
		fmt.Fprintf(stdout, "every tool offered: %s.\n", whyEveryTool(c.settings.ToolsTopK, len(e.Tools())))
		return exitOK
	}
	if f := sel.Fallback; f != nil {
		fmt.Fprintf(stderr, "toolscope: %s retrieval is not available, so the tools are ranked lexically: %v\n", sel.Asked, f)
	}
	printSelection(stdout, sel.Selection)
	return exitOK
}

// whyEveryTool says why a run offers every tool, with k as --tools-top-k.
func whyEveryTool(k, connected int) string {
	if k == 0 {
		return "--tools-top-k 0 offers them all"
	}
	return fmt.Sprintf("%d are connected, and --tools-top-k auto chooses only when more than %d are", connected, engine.AutoRetrievalAbove)
}

// toolsEngine starts the engine of the flags, for its tools. The tools
// subcommands run no model, so the backend is the demo's: "auto" would
// otherwise wait on Ollama for nothing.
func (c *command) toolsEngine(ctx context.Context) (e *engine.Engine, code int, ok bool) {
	c.settings.Backend, c.settings.Mode = engine.BackendDemo, llm.ModeRaw
	return c.startEvery(ctx)
}

func printTools(w io.Writer, ts []tools.Tool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSOURCE\tDESCRIPTION")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name(), tools.SourceOf(t), firstLine(t.Description()))
	}
	tw.Flush()
}

func printSelection(w io.Writer, sel retrieve.Selection) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSCORE\tTOOL\tSOURCE\tDESCRIPTION")
	for i, ch := range sel.Tools {
		fmt.Fprintf(tw, "%d\t%.4f\t%s\t%s\t%s\n", i+1, ch.Score, ch.Name, tools.SourceOf(ch.Tool), firstLine(ch.Tool.Description()))
	}
	tw.Flush()
	fmt.Fprintf(w, "%s retrieval, %d of %d tools offered.\n", sel.Retriever, len(sel.Tools), len(sel.Tools)+sel.LeftOut)
}

// firstLine is a description's first line, cut to fit a terminal row.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
