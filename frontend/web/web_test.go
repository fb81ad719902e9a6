package web

import (
	"context"
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestParams(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []param
	}{
		{"in the schema's order", `{"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "cc": {"type": "array"}}, "required": ["to", "subject"]}`,
			[]param{{"to", "string", true}, {"subject", "string", true}, {"cc", "array", false}}},
		{"a list of types", `{"properties": {"n": {"type": ["integer", "null"]}}}`,
			[]param{{"n", "integer|null", false}}},
		{"no type", `{"properties": {"any": {}}}`, []param{{"any", "", false}}},
		{"no properties", `{"type": "object"}`, nil},
		{"properties not an object", `{"properties": ["a"]}`, nil},
		{"not JSON", `{"properties": `, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := params(tt.schema); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("params(%s) = %v, want %v", tt.schema, got, tt.want)
			}
		})
	}
}

func render(t *testing.T, d PageData) string {
	t.Helper()
	var b strings.Builder
	if err := Page(d).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var sample = PageData{
	Backend: "ollama", Model: "qwen3:4b", Mode: "raw",
	Tools: []ToolInfo{{
		Name: "send_mail", Description: `Send mail. <b>Never</b> "spam".`, Source: "builtin",
		Parameters: `{"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}`,
	}},
	Settings: []Control{
		{Name: "model", ID: "set-model", Label: "Model", Key: "model", Type: "text", Value: "qwen3:4b", Picker: true},
		{Name: "mode", ID: "set-mode", Label: "Mode", Title: "raw or chat", Key: "mode", Type: "text", Value: "chat",
			Options: []Option{{"raw", "raw prompt"}, {"chat", "chat messages"}}},
		{Name: "max_rounds", ID: "set-max-rounds", Label: "Max rounds", Key: "max_rounds", Type: "number", Value: "8", Min: "1", Max: "50", Step: "1"},
		{Name: "tool_delay", ID: "set-tool-delay", Label: "Tool delay", Key: "tool_delay_ms", Type: "seconds", Value: "1.5", Min: "0", Max: "60", Step: "any", Unit: "s"},
	},
}

func TestPageSaysWhenTheDemoModelIsInUse(t *testing.T) {
	if html := render(t, sample); strings.Contains(html, "demo-banner") {
		t.Error("the page shows the demo banner for Ollama")
	}
	d := sample
	d.Backend, d.Model, d.Demo = "demo", "toolscope-demo", true
	html := render(t, d)
	if !strings.Contains(html, `class="demo-banner"`) || !strings.Contains(html, "toolscope-demo is a scripted stand-in") {
		t.Error("the page does not say that the demo model is in use")
	}
	if strings.Contains(html, "Ollama was not ready") {
		t.Error("the page gives a reason for a demo model that was asked for")
	}
	if !strings.Contains(html, `id="demo-badge"`) {
		t.Error("the header does not say that the demo model is in use")
	}
	d.Fallback = &Fallback{Problem: "Ollama is not reachable <at> 127.0.0.1:11434", Next: "Start Ollama, then restart toolscope (./start.sh) to use it."}
	html = render(t, d)
	for _, want := range []string{
		"Chosen because Ollama was not ready: Ollama is not reachable &lt;at&gt; 127.0.0.1:11434.",
		"<strong>Next step:</strong> Start Ollama, then restart toolscope (./start.sh) to use it.",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not say why it fell back to the demo model, and what next: it lacks %q", want)
		}
	}
	if strings.Contains(html, "--backend") {
		t.Error("the fallback note points at a flag that someone who ran ./start.sh never typed")
	}
	if strings.Contains(html, `id="pull"`) {
		t.Error("the page offers a pull that would not help")
	}
	d.Fallback = &Fallback{Problem: `model "qwen3:4b" is not pulled`, Next: "Pull it here.", Pull: "qwen3:4b", PullSize: "2.5 GB"}
	html = render(t, d)
	for _, want := range []string{`<div id="pull" class="pull" data-model="qwen3:4b">`, `>Pull qwen3:4b</button>`, "2.5 GB, through Ollama"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not offer the pull of a missing model: it lacks %q", want)
		}
	}
}

// TestSeedsNameNoFixedDate keeps the examples from going stale: a fixed
// date is in the past one day.
func TestSeedsNameNoFixedDate(t *testing.T) {
	date := regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d`)
	for _, s := range seeds {
		if date.MatchString(s) {
			t.Errorf("the seed %q names a fixed date", s)
		}
	}
}

func TestPageShowsToolsAndSettings(t *testing.T) {
	html := render(t, sample)
	for _, want := range []string{
		`<code class="tool-name">send_mail</code>`,
		`Send mail. &lt;b&gt;Never&lt;/b&gt; &#34;spam&#34;.`, // descriptions are text
		`<li class="param required" title="to (required)"><code>to</code> <span class="param-type">string</span>`,
		// Each control as the server describes it: a select of its
		// options, the model picker, a number input within bounds.
		`<label for="set-mode">Mode`,
		`<select id="set-mode" name="mode" title="raw or chat" data-key="mode" data-type="text">`,
		`<option value="chat" selected>chat messages</option>`,
		`<select id="set-model" name="model" title="" data-key="model" data-type="text" data-default="qwen3:4b"><option value="qwen3:4b" selected>qwen3:4b</option>`,
		`<input id="set-max-rounds" name="max_rounds" title="" data-key="max_rounds" data-type="number" type="number" min="1" max="50" step="1" value="8" required>`,
		`<label for="set-tool-delay">Tool delay <span class="unit">s</span></label>`,
		`data-key="tool_delay_ms" data-type="seconds" type="number" min="0" max="60" step="any" value="1.5"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// TestTemplatesScriptsUse checks that every <template> and data-slot that
// the scripts look up is on the page, since a missing one only fails in a
// browser, at the moment a run reaches it.
func TestTemplatesScriptsUse(t *testing.T) {
	// The operator's page on the demo model, for a model to pull, has the
	// pull's slots too.
	pulling := sample
	pulling.Demo, pulling.Fallback = true, &Fallback{Problem: "model is not pulled", Next: "Pull it here.", Pull: "qwen3:4b"}
	// With an MCP server, the panel has its resources' and prompts' slots.
	serving := sample
	serving.MCPServers = []MCPServer{{Name: "everything", Transport: "stdio", State: "ready"}}
	html := render(t, sample) + render(t, pulling) + render(t, serving)
	scripts, err := fs.Glob(Static, "static/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	templateRef := regexp.MustCompile(`clone\('(tpl-[a-z-]+)'\)|\b(?:r|this|round)\.add\((?:[a-z]+, )?'([a-z-]+)'`)
	slotRef := regexp.MustCompile(`slot\([^,()]+, '([a-z_-]+)'\)`)
	for _, name := range scripts {
		src, err := fs.ReadFile(Static, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range templateRef.FindAllStringSubmatch(string(src), -1) {
			id := m[1]
			if id == "" {
				id = "tpl-" + m[2]
			}
			if !strings.Contains(html, `<template id="`+id+`">`) {
				t.Errorf("%s uses <template id=%q>, which the page lacks", name, id)
			}
		}
		for _, m := range slotRef.FindAllStringSubmatch(string(src), -1) {
			if !strings.Contains(html, `data-slot="`+m[1]+`"`) {
				t.Errorf("%s uses data-slot=%q, which the page lacks", name, m[1])
			}
		}
	}
}

func TestToolsAreGroupedByServer(t *testing.T) {
	tool := func(name, source string) ToolInfo {
		return ToolInfo{Name: name, Source: source, Parameters: `{"type":"object"}`}
	}
	d := sample
	d.Tools = []ToolInfo{tool("send_mail", "builtin"), tool("add", "mcp:calculator"), tool("cancel_meeting", "builtin"), tool("multiply", "mcp:calculator")}
	d.MCPServers = []MCPServer{
		{Name: "calculator", Target: "toolscope mcp calculator", Transport: "stdio", State: "ready", Protocol: "2025-11-25", Log: []string{"listening <on stdio>"}},
		{Name: "broken", Target: "./broken.py", Transport: "stdio", State: "failed", Error: `MCP server "broken" exited during the handshake`},
	}
	groups := groupTools(d.Tools, d.MCPServers)
	var got []string
	for _, g := range groups {
		var names []string
		for _, t := range g.Tools {
			names = append(names, t.Name)
		}
		got = append(got, g.Source+"="+strings.Join(names, ","))
	}
	if want := "builtin=send_mail,cancel_meeting mcp:calculator=add,multiply mcp:broken="; strings.Join(got, " ") != want {
		t.Fatalf("groups = %v, want %s", got, want)
	}
	html := render(t, d)
	for _, want := range []string{
		`data-source="mcp:calculator"`, "toolscope mcp calculator", "listening &lt;on stdio&gt;",
		`class="badge state-failed"`, "MCP server &#34;broken&#34; exited during the handshake",
		">MCP 2025-11-25</span>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if groups := groupTools(d.Tools[1:2], nil); len(groups) != 1 || groups[0].Source != "mcp:calculator" {
		t.Errorf("with no built-in tools there must be no empty built-in group: %+v", groups)
	}
}
