package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolscope/toolscope/compose"
	"github.com/toolscope/toolscope/tools/mcp"
)

// composeCommand writes a compose file that runs toolscope, a model
// server and the MCP servers of a Claude Desktop or VS Code
// configuration, each stdio server in a container of its own behind the
// bridge, and says on stderr which servers it left out and why, and what
// to set before `docker compose up`.
func composeCommand(args []string, stdout, stderr io.Writer) int {
	c := newBareCommand("compose", "[flags] CONFIG", stderr)
	out, backend, gpu := "", compose.BackendOllama, false
	c.add(groupModel, "backend", "ollama|vllm", "the model server beside toolscope: Ollama, or vLLM's OpenAI-compatible server (on NVIDIA GPUs)", text{&backend})
	c.add(groupModel, "gpu", "", "reserve the host's NVIDIA GPUs for Ollama (vLLM always has them)", (*boolValue)(&gpu))
	c.add(groupOutput, "out", "file", "write the compose file there; unset, to stdout", text{&out})
	positional, code, ok := parseArgs(c.fs, args, operands{"an MCP configuration", "e.g. toolscope compose --out compose.yaml claude_desktop_config.json"}, stderr)
	if !ok {
		return code
	}
	if backend != compose.BackendOllama && backend != compose.BackendVLLM {
		fmt.Fprintf(stderr, "toolscope compose: --backend %q: use %s or %s\n", backend, compose.BackendOllama, compose.BackendVLLM)
		return exitUsage
	}
	specs, err := mcp.LoadConfig(positional[0])
	if err != nil {
		fmt.Fprintf(stderr, "toolscope compose: %v\n", err)
		return exitError
	}
	result, err := compose.Generate(specs, compose.Options{Backend: backend, GPU: gpu, Source: positional[0]})
	if err != nil {
		fmt.Fprintf(stderr, "toolscope compose: %v\n", err)
		return exitError
	}
	if out == "" {
		_, err = stdout.Write(result.File)
	} else {
		err = os.WriteFile(out, result.File, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolscope compose: %v\n", err)
		return exitError
	}
	reportCompose(stderr, result, out)
	return exitOK
}

// reportCompose says what the file runs, which servers it left out and
// why, and which variables to set.
func reportCompose(w io.Writer, r *compose.Result, out string) {
	var placed []string
	for _, s := range r.Servers {
		switch s.Placement {
		case compose.InContainer:
			placed = append(placed, s.Name)
		case compose.Remote:
			placed = append(placed, s.Name+" (remote)")
		}
	}
	what, servers := "the compose file", "no MCP server"
	if out != "" {
		what = out
	}
	if len(placed) > 0 {
		servers = fmt.Sprintf("%d MCP servers: %s", len(placed), strings.Join(placed, ", "))
	}
	fmt.Fprintf(w, "toolscope compose: wrote %s, with %s\n", what, servers)
	for _, s := range r.Servers {
		switch {
		case s.Placement == compose.Refused:
			fmt.Fprintf(w, "left out %s: it %s\n", s.Name, s.Reason)
		case len(s.Notes) > 0:
			fmt.Fprintf(w, "note on %s: %s\n", s.Name, strings.Join(s.Notes, "; "))
		}
	}
	for _, v := range r.Variables {
		fmt.Fprintf(w, "set %s (%s's %s) before docker compose up: the file references it, and holds no value\n", v.Name, v.Server, v.For)
	}
}
