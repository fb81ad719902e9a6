package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

func TestToolsList(t *testing.T) {
	res := toolscope(t, "", "tools", "list", "--mcp", "toolscope mcp calculator")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"send_mail  ", "builtin", "multiply", "mcp:calculator",
		"\nMCP SERVER  PROTOCOL    TRANSPORT  TARGET\ncalculator  2026-07-28  stdio      "} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no %q in:\n%s", want, res.stdout)
		}
	}
}

func TestToolsSearch(t *testing.T) {
	res := toolscope(t, "", "tools", "search", "cancel my meeting", "--tools-top-k", "1")
	if res.code != exitOK {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "1 ") || !strings.Contains(lines[1], "cancel_meeting") || lines[2] != "lexical retrieval, 1 of 3 tools offered." {
		t.Errorf("got:\n%s", res.stdout)
	}
	// --k, its old name, still works.
	if old := toolscope(t, "", "tools", "search", "cancel my meeting", "--k", "1"); old.code != exitOK || old.stdout != res.stdout {
		t.Errorf("--k 1: exit %d\n%s%s", old.code, old.stdout, old.stderr)
	}
}

// tools search offers what a run of the same flags offers, defaults
// included: with three tools, auto offers every one.
func TestToolsSearchOffersWhatARunOffers(t *testing.T) {
	const request = "cancel my meeting"
	for _, flags := range [][]string{nil, {"--tools-top-k", "2"}, {"--tools-top-k", "0"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			run := toolscope(t, "", append([]string{"run", "--json", "--backend", "demo", "--demo-delay", "0", "--tool-delay", "0", request}, flags...)...)
			search := toolscope(t, "", append([]string{"tools", "search", request}, flags...)...)
			if run.code != exitOK || search.code != exitOK {
				t.Fatalf("run exit %d, search exit %d: %s%s", run.code, search.code, run.stderr, search.stderr)
			}
			if offered, listed := runOffered(t, run.stdout), searchListed(search.stdout); !slices.Equal(offered, listed) {
				t.Errorf("a run offers %v, tools search lists %v:\n%s", offered, listed, search.stdout)
			}
		})
	}
	if r := toolscope(t, "", "tools", "search", request); !strings.HasSuffix(r.stdout, "every tool offered: 3 are connected, and --tools-top-k auto chooses only when more than 20 are.\n") {
		t.Errorf("auto does not say why every tool is offered:\n%s", r.stdout)
	}
}

// runOffered is the tools a run's first run_started event lists.
func runOffered(t *testing.T, events string) []string {
	t.Helper()
	var first agent.Event
	if err := json.Unmarshal([]byte(strings.SplitN(events, "\n", 2)[0]), &first); err != nil || first.Run == nil {
		t.Fatalf("no run_started first: %v\n%s", err, events)
	}
	return first.Run.Tools
}

// searchListed is the tool column of tools search's table.
func searchListed(out string) []string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Fields(lines[0])
	column := slices.Index(header, "TOOL")
	var names []string
	for _, line := range lines[1 : len(lines)-1] {
		names = append(names, strings.Fields(line)[column])
	}
	return names
}

// tools search -h lists the flags that change what it shows: the tools
// and how a run chooses among them, not the model's or the loop's.
func TestToolsSearchHelpListsItsFlags(t *testing.T) {
	r := toolscope(t, "", "tools", "search", "-h")
	if r.code != exitOK {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{"--tools-top-k n|auto", "--retriever name", "--embed-model name", "--ollama-host address", "--mcp command|URL"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-h lacks %s:\n%s", want, r.stderr)
		}
	}
	for _, unwanted := range []string{"--backend", "--model", "--dialect", "--think", "--max-rounds", "--tool-delay", "Model:", "Loop:", "  -k"} {
		if strings.Contains(r.stderr, unwanted) {
			t.Errorf("-h lists %s:\n%s", unwanted, r.stderr)
		}
	}
}

func TestToolsSearchEmbedding(t *testing.T) {
	server := retrievetest.NewOllamaEmbed(t, "all-minilm")
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	res := toolscopeWithEnv(t, env, "tools", "search", "email Ana", "--tools-top-k", "3", "--retriever", "hybrid", "--ollama-host", server.URL)
	if res.code != exitOK || res.stderr != "" || !strings.Contains(res.stdout, "hybrid retrieval, 3 of 3 tools offered.") {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if first := strings.Split(res.stdout, "\n")[1]; !strings.Contains(first, "send_mail") {
		t.Errorf("first: %s", first)
	}

	res = toolscopeWithEnv(t, env, "tools", "search", "email Ana", "--tools-top-k", "3", "--retriever", "embedding", "--embed-model", "nomic-embed-text", "--ollama-host", server.URL)
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
