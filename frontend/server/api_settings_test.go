package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/streamparser"
)

// settingJSON is one setting of GET /api/settings as a client reads it.
type settingJSON struct {
	Name, Key, Flag, Env, Group, Kind, Label, Help string
	Request, Secret                                bool
	Choices                                        []string
	Min, Max                                       *int64
	Value                                          json.RawMessage
}

func (ts *testServer) settings(t *testing.T) map[string]settingJSON {
	t.Helper()
	resp, err := http.Get(ts.url + "/api/settings")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []settingJSON
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/settings = %d, %v", resp.StatusCode, err)
	}
	if len(list) != len(engine.Fields()) {
		t.Errorf("%d settings, want every one of the table's %d", len(list), len(engine.Fields()))
	}
	byName := map[string]settingJSON{}
	for _, s := range list {
		byName[s.Name] = s
	}
	return byName
}

// TestSettingsDescribeTheTable checks that /api/settings answers each
// setting's row, with the server's value in its request field's units,
// and never a secret's value.
func TestSettingsDescribeTheTable(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendDemo, MaxRounds: 7, ToolDelay: 1500 * time.Millisecond,
		Dialect: streamparser.Marker, OpenAIAPIKey: "sk-secret"}})
	got := ts.settings(t)
	rounds := got["max_rounds"]
	if rounds.Key != "max_rounds" || rounds.Flag != "max-rounds" || rounds.Env != "TOOLSCOPE_MAX_ROUNDS" || !rounds.Request ||
		rounds.Group != "Loop" || rounds.Label != "Max rounds" || rounds.Min == nil || *rounds.Min != 1 || rounds.Max == nil || *rounds.Max != 50 ||
		string(rounds.Value) != "7" {
		t.Errorf("max_rounds = %+v", rounds)
	}
	if delay := got["tool_delay"]; delay.Key != "tool_delay_ms" || string(delay.Value) != "1500" || *delay.Max != 60000 || delay.Kind != "duration" {
		t.Errorf("tool_delay = %+v (value %s), want milliseconds as its key says", delay, delay.Value)
	}
	if dialect := got["dialect"]; string(dialect.Value) != `"marker"` || len(dialect.Choices) != len(streamparser.DialectNames()) || dialect.Min != nil {
		t.Errorf("dialect = %+v, want its choices and the server's dialect", dialect)
	}
	if think := got["think"]; string(think.Value) != "null" {
		t.Errorf("think = %s, want null: the model decides", think.Value)
	}
	if host := got["ollama_host"]; host.Request {
		t.Error("ollama_host is offered to requests")
	}
	key := got["openai_api_key"]
	if !key.Secret || key.Value != nil {
		t.Errorf("openai_api_key = %+v, value %s: a secret's value must not be shown", key, key.Value)
	}
}

// TestPageFormComesFromTheTable checks the Settings form the page renders:
// the settings a request may change and the page labels, each starting at
// the server's value, the demo model's model and mode disabled.
func TestPageFormComesFromTheTable(t *testing.T) {
	html := start(t, setup{settings: engine.Settings{Backend: engine.BackendDemo, MaxRounds: 7, ToolDelay: 1500 * time.Millisecond,
		Dialect: streamparser.Marker}}).page(t)
	form := html[strings.Index(html, `<form id="settings"`):]
	form = form[:strings.Index(form, "</form>")]
	for _, want := range []string{
		`<select id="set-model" name="model"`, `data-default="toolscope-demo"`,
		`<option value="marker" selected>marker</option>`,
		`<option value="raw" selected>raw prompt</option>`,
		`<option value="auto" selected>model decides</option>`,
		`<option value="-1">auto</option><option value="0" selected>all</option>`,
		`name="max_rounds"`, `type="number" min="1" max="50" step="1" value="7"`,
		`data-key="tool_delay_ms" data-type="seconds" type="number" min="0" max="60" step="any" value="1.5"`,
		`<option value="lexical" selected>lexical</option>`,
	} {
		if !strings.Contains(form, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	for _, id := range []string{"set-model", "set-mode"} {
		if i := strings.Index(form, `id="`+id+`"`); i < 0 || !strings.Contains(form[i:i+strings.Index(form[i:], ">")], " disabled") {
			t.Errorf("%s is enabled for the demo model, which has one model and one mode", id)
		}
	}
	for _, server := range []string{"ollama_host", "embed_model", "tool_timeout", "openai_api_key", `name="backend"`} {
		if strings.Contains(form, server) {
			t.Errorf("the form offers %s, which a request cannot change or the page does not offer", server)
		}
	}
}
