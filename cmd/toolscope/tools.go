package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/retrieve"
)

const toolsUsage = `Usage:
  toolscope tools list [flags]              every tool, with where it comes from
  toolscope tools search [flags] "request"  the tools a request would be offered, ranked, with scores
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
	c := newCommand("tools list", "[flags]", stderr)
	if _, code, ok := c.parse(args, 0); !ok {
		return code
	}
	ts, closeEngine, code, ok := c.tools(ctx)
	if !ok {
		return code
	}
	defer closeEngine()
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tSOURCE\tDESCRIPTION")
	for _, t := range ts {
		fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name(), tools.SourceOf(t), firstLine(t.Description()))
	}
	w.Flush()
	return exitOK
}

func toolsSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newCommand("tools search", `[flags] "request"`, stderr)
	k, retriever, embedModel := 5, string(retrieve.Lexical), retrieve.DefaultEmbedModel
	c.add(groupTools, "k", "n", "how many tools to offer; 0 ranks them all", (*intValue)(&k))
	c.withEnv(groupTools, "retriever", "name", "how tools are ranked: lexical (BM25, offline), embedding (Ollama's /api/embed) or hybrid (both, fused)", text[string]{&retriever})
	c.withEnv(groupTools, "embed-model", "name", "the Ollama model that embeds, for embedding and hybrid", text[string]{&embedModel})
	positional, code, ok := c.parse(args, 1)
	if !ok {
		return code
	}
	r, err := retrieve.ParseRetriever(retriever)
	if err != nil {
		fmt.Fprintf(stderr, "toolscope tools search: --retriever: %v\n", err)
		return exitUsage
	}
	ts, closeEngine, code, ok := c.tools(ctx)
	if !ok {
		return code
	}
	defer closeEngine()
	x := retrieve.New(c.retrieveOptions(r, embedModel))
	x.Replace(ts)
	sel := x.Select(ctx, r, positional[0], k, nil)
	if f := sel.Fallback; f != nil {
		fmt.Fprintf(stderr, "toolscope: %s retrieval is not available, so the tools are ranked lexically: %v\n", r, f)
	}
	printSelection(stdout, sel)
	return exitOK
}

// tools starts the engine of the flags and returns its tools. The tools
// subcommands run no model, so the backend is the demo's: "auto" would
// otherwise wait on Ollama for nothing.
func (c *command) tools(ctx context.Context) (ts []tools.Tool, closeEngine func(), code int, ok bool) {
	c.settings.Backend, c.settings.Mode = engine.BackendDemo, llm.ModeRaw
	e, code, ok := c.start(ctx)
	if !ok {
		return nil, nil, code, false
	}
	return e.Tools(), func() { closeMCP(e) }, exitOK, true
}

// retrieveOptions gives r its embedder, when it needs one: Ollama at the
// address the flags name, caching its vectors in the user's cache
// directory so that the next search embeds only the tools that changed.
func (c *command) retrieveOptions(r retrieve.Retriever, model string) retrieve.Options {
	if r == retrieve.Lexical {
		return retrieve.Options{}
	}
	opts := retrieve.Options{CacheDir: engine.EmbeddingsDir()}
	if b, err := ollama.New(ollama.Config{Host: c.settings.OllamaHost, Model: c.settings.Model}); err == nil {
		if base, err := url.Parse(b.BaseURL()); err == nil {
			opts.Embedder = retrieve.NewOllama(base, model, nil)
		}
	}
	return opts // without an embedder, Select falls back to lexical and says why
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
