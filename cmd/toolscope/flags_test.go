package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// sample differs from engine.Defaults in every setting, so that a flag or
// a variable that did not reach its field shows.
func sample() engine.Settings {
	think := false
	return engine.Settings{Backend: engine.BackendOpenAI, Model: "m", OllamaHost: "h:1", OpenAIBaseURL: "http://x/v1", OpenAIAPIKey: "k",
		Template: "qwen3", Mode: llm.ModeChat, Dialect: streamparser.Pythonic, Think: &think, MaxRounds: 7,
		ToolDelay: 1500 * time.Millisecond, ToolTimeout: time.Minute, DemoDelay: 5 * time.Millisecond,
		MCPConfig: "servers.json", ToolsTopK: 4, Retriever: "hybrid", EmbedModel: "e",
		Elicit: agent.ElicitDefaults, SamplingMaxTokens: 99, SamplingPerCall: 2}
}

// TestEverySettingIsAFlagAndAVariable: each row of engine's table, a new
// one too, is a flag of the commands that run the loop, listed by -h under
// its group with its help and variable, and set by the flag and by the
// variable alike.
func TestEverySettingIsAFlagAndAVariable(t *testing.T) {
	want := sample()
	var help strings.Builder
	newCommand("serve", "[flags]", &help).withServer().usage()
	for _, f := range engine.Fields() {
		entry := "  --" + f.Flag()
		if f.Kind != "" {
			entry += " " + f.Kind
		}
		entry += "\n    \t" + f.Help
		if !strings.Contains(help.String(), entry) || !strings.Contains(help.String(), "$"+f.Env()+")") {
			t.Errorf("serve -h lacks --%s as its row says it (%q, $%s)", f.Flag(), entry, f.Env())
		}
		viaFlag := newCommand("run", "", io.Discard)
		if _, _, ok := viaFlag.parse([]string{"--" + f.Flag() + "=" + f.Text(want), "hi"}, operands{name: "a request"}); !ok {
			t.Errorf("--%s=%s was refused", f.Flag(), f.Text(want))
		}
		t.Setenv(f.Env(), f.Text(want))
		viaEnv := newCommand("run", "", io.Discard)
		if _, _, ok := viaEnv.parse([]string{"hi"}, operands{name: "a request"}); !ok {
			t.Errorf("$%s=%s was refused", f.Env(), f.Text(want))
		}
		for how, c := range map[string]*command{"--" + f.Flag(): viaFlag, "$" + f.Env(): viaEnv} {
			if got := f.Text(c.settings); got != f.Text(want) {
				t.Errorf("%s %s set %s to %q", how, f.Text(want), f.Name, got)
			}
		}
	}
}

// The default model is settled once, by the engine: the command line
// leaves --model unset for every backend, so --backend openai runs the
// server's own model with no rule of its own.
func TestModelIsLeftToTheBackend(t *testing.T) {
	for _, backend := range []string{"ollama", "openai", "demo"} {
		c := newCommand("run", "", io.Discard)
		if _, _, ok := c.parse([]string{"--backend", backend, "hi"}, operands{name: "a request"}); !ok || c.settings.Model != "" {
			t.Errorf("--backend %s: model %q, want none until the engine settles it", backend, c.settings.Model)
		}
	}
}
