package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// waitPaused polls the run until it is paused, and returns what it
// waits on.
func (ts *testServer) waitPaused(t *testing.T, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, v := ts.get(t, "/api/runs/"+id)
		if v["status"] == "paused" {
			return v["paused"].(map[string]any)
		}
		if v["done"] == true {
			t.Fatalf("run ended %v without pausing", v["status"])
		}
	}
	t.Fatal("the run never paused")
	return nil
}

func TestStepThroughARun(t *testing.T) {
	ts := start(t, setup{})
	id, _ := ts.startRun(t, `{"message": "Email john@example.com about the standup", "step": true}`)

	if p := ts.waitPaused(t, id); p["at"] != "input" || p["round"] != 1.0 || p["input"] == nil {
		t.Fatalf("first pause = %v, want round 1's input", p)
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", `{"skip": true}`); status != http.StatusBadRequest {
		t.Fatalf("skip at the input = %d %v, want 400", status, v)
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", ``); status != http.StatusOK {
		t.Fatalf("continue = %d %v", status, v)
	}
	p := ts.waitPaused(t, id)
	if call, _ := p["call"].(map[string]any); p["at"] != "call" || call["name"] != "send_mail" {
		t.Fatalf("second pause = %v, want the send_mail call", p)
	}
	// Refused edits leave the call waiting, its tool not run.
	for body, says := range map[string]string{
		`{"error": ""}`:                          `"error" needs the error's text`,
		`{"skip": true, "result": "x"}`:          `"skip" cannot go with "result"`,
		`{"skip": true, "error": "x"}`:           `"skip" cannot go with "error"`,
		`{"skip": true, "arguments": {"to": 1}}`: `"skip" cannot go with "arguments"`,
	} {
		if status, v := ts.post(t, "/api/runs/"+id+"/continue", body); status != http.StatusBadRequest || !strings.Contains(v["error"].(string), says) {
			t.Errorf("continue %s = %d %v, want 400 saying %q", body, status, v, says)
		}
	}
	if p := ts.waitPaused(t, id); p["at"] != "call" {
		t.Fatalf("after refused edits the run waits at %v, want the call still", p["at"])
	}
	if status, v := ts.get(t, "/api/runs/"+id+"/export"); status != http.StatusConflict ||
		!strings.Contains(v["error"].(string), "is paused in step mode: continue it to its end") {
		t.Errorf("export of a paused run = %d %v, want 409 saying it is paused", status, v)
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", `{"error": "mailbox full"}`); status != http.StatusOK {
		t.Fatalf("fake = %d %v", status, v)
	}
	p = ts.waitPaused(t, id)
	if resp, _ := p["response"].(string); p["at"] != "response" || !strings.Contains(resp, "mailbox full") {
		t.Fatalf("third pause = %v, want the faked error in the response", p)
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", `{}`); status != http.StatusOK {
		t.Fatalf("continue = %d %v", status, v)
	}
	if p := ts.waitPaused(t, id); p["at"] != "input" || p["round"] != 2.0 {
		t.Fatalf("fourth pause = %v, want round 2's input", p)
	}

	// Stop ends a paused run.
	if status, v := ts.post(t, "/api/runs/"+id+"/cancel", ``); status != http.StatusAccepted {
		t.Fatalf("cancel = %d %v", status, v)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, v := ts.get(t, "/api/runs/"+id)
		if v["done"] == true {
			if v["status"] != "cancelled" {
				t.Fatalf("status = %v, want cancelled", v["status"])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the paused run did not end when stopped")
		}
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", ``); status != http.StatusConflict || v["error"] != "the run is over: it was cancelled" {
		t.Fatalf("continue after the end = %d %v, want 409 saying the run was cancelled", status, v)
	}
	var edits []string
	_, v := ts.get(t, "/api/runs/"+id)
	for _, e := range v["events"].([]any) {
		if e := e.(map[string]any); e["type"] == "edited" {
			edits = append(edits, e["change"].(map[string]any)["what"].(string))
		}
	}
	if strings.Join(edits, " ") != "error" {
		t.Fatalf("edits recorded = %v, want the faked error", edits)
	}
}

func TestContinueARunThatDoesNotStep(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	status, v := ts.post(t, "/api/runs/"+id+"/continue", ``)
	g.Release()
	if status != http.StatusConflict || v["error"] != "the run is not paused" {
		t.Fatalf("continue while it runs = %d %v, want 409 saying it is not paused", status, v)
	}
	ts.events(t, id, 0)
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", ``); status != http.StatusConflict || v["error"] != "the run is over: it answered" {
		t.Fatalf("continue once it answered = %d %v, want 409 saying it is over", status, v)
	}
}

// Runs paused in step mode keep their places; the 429 that refuses
// another says so, how long they wait at most, and how to free them.
func TestPausedRunsCountAsLive(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) {
		c.Hub = runs.NewHub(10, runs.Limits{MaxLive: 2})
	}})
	var paused []string
	for range 2 {
		id, _ := ts.startRun(t, `{"message": "hello", "step": true}`)
		ts.waitPaused(t, id)
		paused = append(paused, id)
	}
	status, v := ts.post(t, "/api/runs", `{"message": "hello"}`)
	msg, _ := v["error"].(string)
	if status != http.StatusTooManyRequests || !strings.Contains(msg, "2 of them are paused in step mode") || !strings.Contains(msg, "30m at most") ||
		!strings.Contains(msg, "GET /api/runs") || !strings.Contains(msg, "/continue") || !strings.Contains(msg, "/cancel") {
		t.Fatalf("a third run = %d %q, want 429 saying two runs are paused, and how to find and free them", status, msg)
	}
	ts.post(t, "/api/runs/"+paused[0]+"/cancel", ``)
	ts.events(t, paused[0], 0)
	for deadline := time.Now().Add(10 * time.Second); ts.hub.Live() > 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled run still counts as live")
		}
	}
	ts.startRun(t, `{"message": "hello"}`)
}
