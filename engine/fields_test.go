package engine_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

func TestFieldNamesDeriveFromOneName(t *testing.T) {
	f, ok := engine.FieldNamed(engine.SettingToolDelay)
	if !ok {
		t.Fatal("tool_delay is not in the table")
	}
	if f.Flag() != "tool-delay" || f.Env() != "TOOLSCOPE_TOOL_DELAY" || f.Key() != "tool_delay_ms" {
		t.Errorf("flag %q, env %q, key %q", f.Flag(), f.Env(), f.Key())
	}
	if _, ok := engine.FieldNamed("no_such_setting"); ok {
		t.Error("an unknown name was found")
	}
}

// Every field reads back what it writes, as text and as JSON: a row whose
// codec loses a value would change a setting on its way through a flag, a
// request or a run's record.
func TestEveryFieldRoundTrips(t *testing.T) {
	think := true
	s := engine.Settings{Backend: engine.BackendOpenAI, Model: "m", OllamaHost: "h:1", OpenAIBaseURL: "http://x/v1",
		Template: "qwen3", Mode: llm.ModeChat, Dialect: streamparser.Dialect(2), Think: &think, MaxRounds: 7,
		ToolDelay: 1500 * time.Millisecond, ToolTimeout: time.Minute, DemoDelay: 5 * time.Millisecond,
		MCPConfig: "servers.json", ToolsTopK: engine.ToolsTopKAuto, Retriever: "hybrid", EmbedModel: "e",
		Elicit: agent.ElicitDefaults, SamplingMaxTokens: 256, SamplingPerCall: 2}
	for _, f := range engine.Fields() {
		var viaText engine.Settings
		if err := f.Parse(&viaText, f.Text(s)); err != nil {
			t.Errorf("%s: Parse(%q): %v", f.Name, f.Text(s), err)
		}
		if f.Text(viaText) != f.Text(s) {
			t.Errorf("%s: text %q came back as %q", f.Name, f.Text(s), f.Text(viaText))
		}
	}
	raw, err := json.Marshal(s.Values())
	if err != nil {
		t.Fatal(err)
	}
	for _, serversOwn := range []string{"openai_api_key", "ollama_host", "openai_base_url", "mcp_config", "template", "tool_timeout_ms", "embed_model"} {
		if strings.Contains(string(raw), serversOwn) {
			t.Errorf("a run records the server's %s, which its viewers may read: %s", serversOwn, raw)
		}
	}
	// A rerun lays a run's record over another server's settings: each
	// recorded setting comes back as it was.
	var values map[string]json.RawMessage
	json.Unmarshal(raw, &values)
	other := s
	other.Model, other.Mode, other.Dialect, other.Think, other.MaxRounds, other.ToolDelay, other.ToolsTopK, other.Retriever = "x", llm.ModeRaw, 0, nil, 2, 0, 3, "lexical"
	back, err := other.Apply(values)
	if err != nil {
		t.Fatalf("Apply(%s): %v", raw, err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("a run's settings came back as\n%+v\nwant\n%+v", back, s)
	}
}

// null and "" keep the server's setting, as a request that leaves the
// field out does; thinking's null lets the model decide.
func TestApplyKeepsWhatARequestLeavesUnset(t *testing.T) {
	think := true
	base := engine.Defaults()
	base.Model, base.Think, base.MaxRounds = "qwen3:8b", &think, 5
	got, err := base.Apply(map[string]json.RawMessage{"model": json.RawMessage(`""`), "backend": json.RawMessage(`""`),
		"max_rounds": json.RawMessage(`null`), "dialect": json.RawMessage(`null`), "think": json.RawMessage(`null`)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "qwen3:8b" || got.Backend != base.Backend || got.MaxRounds != 5 || got.Dialect != base.Dialect || got.Think != nil {
		t.Errorf("Apply = %+v: want the server's model, backend, rounds and dialect, and thinking left to the model", got)
	}
	if _, err := base.Apply(map[string]json.RawMessage{"max_rounds": json.RawMessage(`""`)}); err == nil {
		t.Error(`"max_rounds": "" is taken: a number sent as a string must be refused`)
	}
}

func TestApplyAsARequest(t *testing.T) {
	base := engine.Defaults()
	for _, c := range []struct {
		name, body string
		want       []string // parts of the error; none for success
	}{
		{"request settings", `{"model":"qwen3:8b","max_rounds":3,"tool_delay_ms":0,"think":null,"dialect":"pythonic"}`, nil},
		{"the server's", `{"ollama_host":"evil:1","embed_model":"x"}`, []string{`ollama_host "evil:1" is the server's setting`, "--ollama-host", `embed_model "x" is the server's`}},
		{"a secret", `{"openai_api_key":"k"}`, []string{"openai_api_key"}},
		{"wrong type", `{"max_rounds":"3"}`, []string{`max_rounds "3" must be a whole number`}},
		{"out of range", `{"max_rounds":0,"tool_delay_ms":61000}`, []string{"max_rounds 0 must be from 1 to 50", "tool_delay_ms 61000 must be from 0 to 60000"}},
		{"overflowing duration", `{"tool_delay_ms":99999999999999999}`, []string{"tool_delay_ms 99999999999999999 must be from 0 to 60000"}},
		{"beyond 64 bits", `{"max_rounds":99999999999999999999,"tool_delay_ms":1.5}`, []string{"max_rounds 99999999999999999999 must be from 1 to 50", "tool_delay_ms 1.5 must be a whole number"}},
		{"a value that breaks another setting", `{"backend":"demo","mode":"chat"}`, []string{`mode "chat" is not available`}},
		{"unknown choice", `{"dialect":"klingon"}`, []string{`dialect "klingon" is unknown: use hermes`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var values map[string]json.RawMessage
			if err := json.Unmarshal([]byte(c.body), &values); err != nil {
				t.Fatal(err)
			}
			got, err := base.Apply(values)
			if c.want == nil {
				if err != nil || got.Model != "qwen3:8b" || got.MaxRounds != 3 || got.ToolDelay != 0 || got.Think != nil || got.Dialect.String() != "pythonic" {
					t.Fatalf("Apply = %+v, %v", got, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Apply(%s) took it: %+v", c.body, got)
			}
			if !reflect.DeepEqual(got, base) {
				t.Errorf("a refused request changed the settings: %+v", got)
			}
			for _, part := range c.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("%q lacks %q", err, part)
				}
			}
		})
	}
}
