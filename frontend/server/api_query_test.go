package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestQueryAnswersWithTheWholeRun: /api/query runs the loop to the end
// with the k tools chosen for the query, and the run is listed like the
// page's.
func TestQueryAnswersWithTheWholeRun(t *testing.T) {
	ts := start(t, setup{})
	status, v := ts.post(t, "/api/query", `{"query": "Send an email to ann@example.com saying hello", "k": 2}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	offered := names(v["tools_offered"])
	if len(offered) == 0 || len(offered) > 2 || !slices.Contains(offered, "send_mail") {
		t.Errorf("tools_offered = %v, want at most 2 with send_mail", v["tools_offered"])
	}
	calls, _ := v["tool_calls"].([]any)
	if len(calls) != 1 {
		t.Fatalf("tool_calls = %v", v["tool_calls"])
	}
	call := calls[0].(map[string]any)
	if call["name"] != "send_mail" || call["result"] == nil || call["arguments"].(map[string]any)["to"] != "ann@example.com" {
		t.Errorf("call = %v", call)
	}
	raw, _ := v["raw_model_output"].(string)
	if final, _ := v["final_text"].(string); final == "" || !strings.Contains(raw, "<tool_call>") || !strings.Contains(raw, final) {
		t.Errorf("final_text %q, raw_model_output %q", final, raw)
	}
	_, list := ts.get(t, "/api/runs")
	runs, _ := list["runs"].([]any)
	if len(runs) != 1 || runs[0].(map[string]any)["id"] != v["run_id"] || runs[0].(map[string]any)["source"] != "api" {
		t.Errorf("the run must be listed as the API's: %v (run_id %v)", runs, v["run_id"])
	}
}

// names reads a JSON array of strings.
func names(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, n := range list {
		out[i], _ = n.(string)
	}
	return out
}

func TestQueryRefusesBadInput(t *testing.T) {
	ts := start(t, setup{})
	for _, c := range []struct{ body, want string }{
		{``, "empty"},
		{`{"query": ""}`, `"query" is empty`},
		{`{"query": "hi", "k": -2}`, `"k" -2 must be 0 (every tool), a number of tools, or -1 (auto)`},
		{`{"query": "hi", "k": "two"}`, `"k" "two" must be a whole number`},
		{`{"query": "hi", "top": 2}`, "top"},
		{`[1]`, "not a valid query"},
	} {
		status, v := ts.post(t, "/api/query", c.body)
		if msg, _ := v["error"].(string); status != 400 || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %v, want 400 naming %q", c.body, status, v, c.want)
		}
	}
	if _, list := ts.get(t, "/api/runs"); len(list["runs"].([]any)) != 0 {
		t.Errorf("a refused query started a run: %v", list)
	}
}

// TestQueryRefusesAnUnservedModelAsRunsDo: /api/query refuses a model the
// backend does not serve with /api/runs's 400, listing the models served,
// and starts no run; it asks a model that is served.
func TestQueryRefusesAnUnservedModelAsRunsDo(t *testing.T) {
	ts := start(t, setup{})
	runStatus, run := ts.post(t, "/api/runs", `{"message": "hi", "model": "gpt-4"}`)
	queryStatus, query := ts.post(t, "/api/query", `{"query": "hi", "model": "gpt-4"}`)
	if runStatus != 400 || queryStatus != 400 || fmt.Sprint(query) != fmt.Sprint(run) {
		t.Fatalf("/api/query: %d %v; /api/runs: %d %v; want the same 400", queryStatus, query, runStatus, run)
	}
	if fmt.Sprint(query["models"]) != "[toolscope-demo]" {
		t.Errorf("the error lists %v, want the models served", query["models"])
	}
	if _, list := ts.get(t, "/api/runs"); len(list["runs"].([]any)) != 0 {
		t.Errorf("a refused model started a run: %v", list)
	}
	if status, v := ts.post(t, "/api/query", `{"query": "hi", "model": "toolscope-demo"}`); status != 200 {
		t.Errorf("a served model: %d %v, want 200", status, v)
	}
}
