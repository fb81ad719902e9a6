package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
)

// recorded is the settings run id's run_started carries.
func (ts *testServer) recorded(t *testing.T, id string) map[string]any {
	t.Helper()
	events := ts.events(t, id, 0)
	if len(events) == 0 || events[0].event.Type != agent.RunStarted {
		t.Fatalf("run %s does not begin with run_started: %+v", id, events)
	}
	var settings map[string]any
	if err := json.Unmarshal(events[0].event.Run.Settings, &settings); err != nil {
		t.Fatalf("run_started's settings %s: %v", events[0].event.Run.Settings, err)
	}
	return settings
}

// TestEveryEntranceReadsSettingsAlike: /api/runs, a rerun and /api/query
// hand their settings to one decoder, so a setting is refused in the same
// words at each, named as that entrance spells it, and a server's setting
// is refused by name rather than taken or called unknown.
func TestEveryEntranceReadsSettingsAlike(t *testing.T) {
	ts := start(t, setup{})
	old, _ := ts.startRun(t, `{"message": "hi"}`)
	ts.events(t, old, 0)
	entrances := []struct{ name, path, body string }{
		{"run", "/api/runs", `{"message": "hi", %s}`},
		{"rerun", "/api/runs/" + old + "/rerun", `{"round": 1, %s}`},
		{"query", "/api/query", `{"query": "hi", %s}`},
	}
	for _, c := range []struct{ settings, says, query string }{
		{`"ollama_host": "evil:1"`, `"ollama_host" "evil:1" is the server's setting: a request cannot change it (start toolscope with --ollama-host)`, ""},
		{`"openai_api_key": "sk-1"`, `"openai_api_key" "sk-1" is the server's setting`, ""},
		{`"max_rounds": 0, "tool_delay_ms": 61000`, `"max_rounds" 0 must be from 1 to 50; "tool_delay_ms" 61000 must be from 0 to 60000`, ""},
		{`"tools_top_k": -2`, `"tools_top_k" -2 must be 0 (every tool), a number of tools, or -1 (auto)`, `"k" -2 must be 0 (every tool)`},
		{`"Max_Rounds": 3`, `field "Max_Rounds" is spelled "max_rounds"`, ""},
	} {
		for _, e := range entrances {
			settings, says := c.settings, c.says
			if e.name == "query" && c.query != "" {
				settings, says = strings.Replace(settings, "tools_top_k", "k", 1), c.query
			}
			body := strings.Replace(e.body, "%s", settings, 1)
			status, v := ts.post(t, e.path, body)
			if msg, _ := v["error"].(string); status != http.StatusBadRequest || !strings.Contains(msg, says) {
				t.Errorf("%s %s = %d %q, want 400 saying %q", e.name, body, status, msg, says)
			}
		}
	}
	// /api/query names tools_top_k "k" only.
	if status, v := ts.post(t, "/api/query", `{"query": "hi", "tools_top_k": 2}`); status != http.StatusBadRequest || !strings.Contains(v["error"].(string), `unknown field "tools_top_k"`) {
		t.Errorf("/api/query took tools_top_k: %d %v", status, v)
	}
}

// TestEveryEntranceRecordsItsSettings: whichever entrance started a run,
// its run_started carries the settings it ran with, the request's among
// them and the backend as settled.
func TestEveryEntranceRecordsItsSettings(t *testing.T) {
	ts := start(t, setup{})
	run, _ := ts.startRun(t, `{"message": "hi", "max_rounds": 4, "dialect": "marker"}`)
	_, query := ts.post(t, "/api/query", `{"query": "hi", "k": 1, "max_rounds": 5}`)
	_, chat := ts.post(t, "/v1/chat/completions", `{"model": "toolscope-demo", "temperature": 0.5, "messages": [{"role": "user", "content": "hi"}]}`)
	chatRun, _ := chat["toolscope"].(map[string]any)["run_id"].(string)
	for _, c := range []struct {
		id   string
		want map[string]any
	}{
		{run, map[string]any{"backend": "demo", "max_rounds": 4.0, "dialect": "marker"}},
		{query["run_id"].(string), map[string]any{"backend": "demo", "max_rounds": 5.0, "tools_top_k": 1.0}},
		{chatRun, map[string]any{"backend": "demo", "model": "toolscope-demo"}},
	} {
		got := ts.recorded(t, c.id)
		for key, want := range c.want {
			if got[key] != want {
				t.Errorf("run %s recorded %s = %v, want %v", c.id, key, got[key], want)
			}
		}
	}
	if sampling, _ := ts.recorded(t, chatRun)[engine.KeySampling].(map[string]any); sampling["temperature"] != 0.5 {
		t.Errorf("the /v1 run recorded sampling %v, want temperature 0.5", sampling)
	}
}

// TestRerunKeepsTheRunsSettings: a rerun that sends no settings runs with
// those of the run it reruns, not the server's; those it sends replace
// them.
func TestRerunKeepsTheRunsSettings(t *testing.T) {
	ts := start(t, setup{})
	old, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup", "max_rounds": 3, "dialect": "pythonic"}`)
	ts.events(t, old, 0)
	status, v := ts.post(t, "/api/runs/"+old+"/rerun", `{"round": 1}`)
	if status != http.StatusCreated {
		t.Fatalf("POST rerun = %d %v", status, v)
	}
	if got := ts.recorded(t, v["id"].(string)); got["max_rounds"] != 3.0 || got["dialect"] != "pythonic" {
		t.Errorf("the rerun ran with max_rounds %v, dialect %v; want the run's 3 and pythonic", got["max_rounds"], got["dialect"])
	}
	status, v = ts.post(t, "/api/runs/"+old+"/rerun", `{"round": 1, "dialect": "marker"}`)
	if status != http.StatusCreated {
		t.Fatalf("POST rerun = %d %v", status, v)
	}
	if got := ts.recorded(t, v["id"].(string)); got["max_rounds"] != 3.0 || got["dialect"] != "marker" {
		t.Errorf("the rerun ran with max_rounds %v, dialect %v; want the run's 3 and the request's marker", got["max_rounds"], got["dialect"])
	}
}
