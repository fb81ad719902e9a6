package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// roundInputs returns each round's input of a finished run, by round.
func (ts *testServer) roundInputs(t *testing.T, id string) map[int]*llm.Input {
	t.Helper()
	inputs := map[int]*llm.Input{}
	for _, e := range ts.events(t, id, 0) {
		if e.event.Type == agent.RoundStarted {
			inputs[e.event.Round] = e.event.Input
		}
	}
	return inputs
}

func TestRerunFromARoundWithAnotherDialect(t *testing.T) {
	ts := start(t, setup{})
	old, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup", "dialect": "hermes"}`)
	before := ts.roundInputs(t, old)
	if len(before) < 2 {
		t.Fatalf("the demo run has %d rounds, want 2 to rerun the second", len(before))
	}

	status, v := ts.post(t, "/api/runs/"+old+"/rerun", `{"round": 2, "dialect": "marker"}`)
	if status != http.StatusCreated {
		t.Fatalf("POST rerun = %d %v", status, v)
	}
	id := v["id"].(string)
	after := ts.roundInputs(t, id)
	got, want := after[1].Messages, before[2].Messages
	if len(got) != len(want) || !reflect.DeepEqual(got[1:], want[1:]) {
		t.Fatalf("the rerun's round 1 messages are\n%+v\nwant the old round 2's\n%+v", got, want)
	}
	if got[0].Role != llm.RoleSystem || !strings.Contains(got[0].Content, streamparser.Marker.Instructions()) ||
		strings.Contains(got[0].Content, streamparser.Hermes.Instructions()) {
		t.Errorf("the rerun's system prompt does not teach the marker dialect alone:\n%s", got[0].Content)
	}

	fork := map[string]any{"run": old, "round": float64(2)}
	if _, snap := ts.get(t, "/api/runs/"+id); !reflect.DeepEqual(snap["forked_from"], fork) {
		t.Errorf("snapshot forked_from = %v, want %v", snap["forked_from"], fork)
	}
	_, list := ts.get(t, "/api/runs")
	for _, r := range list["runs"].([]any) {
		r := r.(map[string]any)
		if r["id"] == old && r["forked_from"] != nil {
			t.Errorf("the original run lists forked_from %v, want none", r["forked_from"])
		}
		if r["id"] == id && !reflect.DeepEqual(r["forked_from"], fork) {
			t.Errorf("GET /api/runs lists the rerun with forked_from %v, want %v", r["forked_from"], fork)
		}
	}
}

func TestRerunWithEditedMessages(t *testing.T) {
	ts := start(t, setup{})
	old, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup"}`)
	ts.events(t, old, 0)
	edited := []llm.Message{{Role: llm.RoleUser, Content: "What is 17 * 23?"}}
	body, _ := json.Marshal(map[string]any{"round": 1, "messages": edited})
	status, v := ts.post(t, "/api/runs/"+old+"/rerun", string(body))
	if status != http.StatusCreated {
		t.Fatalf("POST rerun = %d %v", status, v)
	}
	got := ts.roundInputs(t, v["id"].(string))[1].Messages
	if len(got) != 2 || got[0].Role != llm.RoleSystem || got[1] != edited[0] {
		t.Fatalf("the rerun's round 1 messages are %+v, want the system prompt and the edited request", got)
	}
}

func TestRerunBadRequests(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendDemo}})
	old, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup"}`)
	ts.events(t, old, 0)
	for _, c := range []struct {
		name, path, body string
		status           int
		says             string
	}{
		{"unknown run", "/api/runs/r-nope/rerun", `{"round": 1}`, 404, `no run "r-nope"`},
		{"round past the end", "/api/runs/" + old + "/rerun", `{"round": 9}`, 400, `"round" 9 is not a round of run ` + old + `: it has rounds 1 to 2`},
		{"round zero", "/api/runs/" + old + "/rerun", `{"round": 0}`, 400, `"round" 0 is not a round of run ` + old + `: it has rounds 1 to 2`},
		{"no round", "/api/runs/" + old + "/rerun", `{}`, 400, `"round" is required`},
		{"a null round", "/api/runs/" + old + "/rerun", `{"round": null}`, 400, `"round" is required`},
		{"a message", "/api/runs/" + old + "/rerun", `{"round": 1, "message": "hi"}`, 400, `a rerun takes its conversation from the run`},
		{"ends on the assistant", "/api/runs/" + old + "/rerun", `{"round": 1, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yes"}]}`, 400, `must end with a user turn`},
		{"a bad role", "/api/runs/" + old + "/rerun", `{"round": 1, "messages": [{"role": "tool", "content": "{}"}]}`, 400, `"messages"[0] has role "tool"`},
		{"a bad dialect", "/api/runs/" + old + "/rerun", `{"round": 1, "dialect": "yaml"}`, 400, `"dialect" "yaml" is unknown`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, v := ts.post(t, c.path, c.body)
			if msg, _ := v["error"].(string); status != c.status || !strings.Contains(msg, c.says) {
				t.Errorf("POST %s %s = %d %q, want %d saying %q", c.path, c.body, status, msg, c.status, c.says)
			}
		})
	}
}

// A run that failed before its first round, Ollama being down, is rerun
// from round 1 as it began, here on the demo model.
func TestRerunARunThatFailedBeforeItsFirstRound(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: nettest.ClosedAddress(t), Model: "qwen3:4b"}})
	request := "Send an email to john@example.com about tomorrow's standup"
	old, conv := ts.startRun(t, `{"message": "`+request+`"}`)
	if inputs := ts.roundInputs(t, old); len(inputs) != 0 {
		t.Fatalf("the run on a closed Ollama has rounds %v, want none", inputs)
	}
	if _, snap := ts.get(t, "/api/runs/"+old); snap["status"] != "error" {
		t.Fatalf("the run on a closed Ollama ended %v, want error", snap["status"])
	}

	says := `"round" 2 is not a round of run ` + old + `: it ended before its first round; rerun it from round 1`
	if status, v := ts.post(t, "/api/runs/"+old+"/rerun", `{"round": 2, "backend": "demo"}`); status != http.StatusBadRequest || v["error"] != says {
		t.Errorf("POST rerun from round 2 = %d %v, want 400 saying %q", status, v, says)
	}
	status, v := ts.post(t, "/api/runs/"+old+"/rerun", `{"round": 1, "backend": "demo"}`)
	if status != http.StatusCreated {
		t.Fatalf("POST rerun = %d %v", status, v)
	}
	id := v["id"].(string)
	got := ts.roundInputs(t, id)[1]
	if got == nil || len(got.Messages) != 2 || got.Messages[0].Role != llm.RoleSystem || got.Messages[1] != (llm.Message{Role: llm.RoleUser, Content: request}) {
		t.Fatalf("the rerun's round 1 input is %+v, want the system prompt and the request", got)
	}
	if _, snap := ts.get(t, "/api/runs/"+id); snap["status"] != "answered" {
		t.Errorf("the rerun on the demo model ended %v, want answered", snap["status"])
	}

	// A follow-up's earlier turns are not kept with it: it cannot be
	// rerun as it began.
	next, _ := ts.startRun(t, `{"message": "and to ann@example.com", "conversation_id": "`+conv+`"}`)
	ts.events(t, next, 0)
	want := "run " + next + " ended before its first round, and its conversation before it is not kept: send the request again"
	if status, v := ts.post(t, "/api/runs/"+next+"/rerun", `{"round": 1, "backend": "demo"}`); status != http.StatusBadRequest || v["error"] != want {
		t.Errorf("POST rerun of a follow-up = %d %v, want 400 saying %q", status, v, want)
	}
}
