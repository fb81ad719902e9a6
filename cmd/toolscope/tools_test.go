package main

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

func TestToolsList(t *testing.T) {
	res := toolscope(t, "", "tools", "list", "--mcp", "toolscope mcp calculator")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"send_mail  ", "builtin", "multiply", "mcp:calculator"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no %q in:\n%s", want, res.stdout)
		}
	}
}

func TestToolsSearch(t *testing.T) {
	res := toolscope(t, "", "tools", "search", "cancel my meeting", "--k", "1")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "1 ") || !strings.Contains(lines[1], "cancel_meeting") || lines[2] != "lexical retrieval, 1 of 3 tools offered." {
		t.Errorf("got:\n%s", res.stdout)
	}
}

func TestToolsSearchEmbedding(t *testing.T) {
	server := retrievetest.NewOllamaEmbed(t, "all-minilm")
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	res := toolscopeWithEnv(t, env, "tools", "search", "email Ana", "--retriever", "hybrid", "--ollama-host", server.URL)
	if res.code != exitOK || res.stderr != "" || !strings.Contains(res.stdout, "hybrid retrieval, 3 of 3 tools offered.") {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if first := strings.Split(res.stdout, "\n")[1]; !strings.Contains(first, "send_mail") {
		t.Errorf("first: %s", first)
	}

	res = toolscopeWithEnv(t, env, "tools", "search", "email Ana", "--retriever", "embedding", "--embed-model", "nomic-embed-text", "--ollama-host", server.URL)
	if res.code != exitOK || !strings.Contains(res.stderr, "ranked lexically") || !strings.Contains(res.stderr, "run 'ollama pull nomic-embed-text'") || !strings.Contains(res.stdout, "lexical retrieval") {
		t.Errorf("a missing model: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
}

func TestToolsUsage(t *testing.T) {
	for _, args := range [][]string{{"tools"}, {"tools", "find"}, {"tools", "search"}, {"tools", "search", "x", "--retriever", "vector"}} {
		if res := toolscope(t, "", args...); res.code != exitUsage || res.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, res.code, res.stderr)
		}
	}
}
