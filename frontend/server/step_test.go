package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
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
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", ``); status != http.StatusConflict {
		t.Fatalf("continue after the end = %d %v, want 409", status, v)
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
	ts := start(t, setup{})
	id, _ := ts.startRun(t, `{"message": "hello"}`)
	if status, v := ts.post(t, "/api/runs/"+id+"/continue", ``); status != http.StatusConflict {
		t.Fatalf("continue = %d %v, want 409", status, v)
	}
}
