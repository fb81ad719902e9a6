package server_test

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/store"
)

// withHistory starts a server whose runs are kept in the database in dir,
// closed once the server has stopped.
func withHistory(t *testing.T, dir string) *testServer {
	t.Helper()
	history, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { history.Close() }) // registered first, so run last
	return start(t, setup{config: func(cfg *server.Config) { cfg.Hub.SetArchive(history) }})
}

func TestRunsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	var id string
	var played []sseEvent
	t.Run("before the restart", func(t *testing.T) {
		ts := withHistory(t, dir)
		id, _ = ts.startRun(t, `{"message": "Send an email to john@example.com about the standup"}`)
		played = ts.events(t, id, 0)
	})

	ts := withHistory(t, dir)
	if _, err := ts.hub.Get(id); err != nil {
		t.Fatalf("the hub does not find the stored run: %v", err)
	}
	for query, want := range map[string]int{"": 1, "?q=JOHN": 1, "?q=send_mail": 1, "?q=answered": 1, "?q=nothing+like+it": 0} {
		status, v := ts.get(t, "/api/runs"+query)
		list, _ := v["runs"].([]any)
		if status != http.StatusOK || len(list) != want {
			t.Errorf("GET /api/runs%s = %d %v; want %d runs", query, status, v, want)
		}
	}
	status, v := ts.get(t, "/api/runs/"+id)
	if status != http.StatusOK || v["done"] != true || v["reason"] != string(agent.Answered) {
		t.Fatalf("GET /api/runs/%s = %d %v", id, status, v)
	}
	replayed := ts.events(t, id, 0)
	if len(replayed) != len(played) || replayed[len(replayed)-1].typ != string(agent.RunFinished) {
		t.Fatalf("the stored run replays %d events, want the %d it sent, ending with run_finished", len(replayed), len(played))
	}
	resp, err := http.Get(ts.url + "/api/runs/" + id + "/export")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("export of the stored run = %d %q", resp.StatusCode, body)
	}
	_, health := ts.get(t, "/api/health")
	if h, _ := health["history"].(map[string]any); h["on"] != true || h["path"] == "" {
		t.Fatalf("health history = %v", health["history"])
	}
}

// TestStoredRunsSaySo: after a restart, GET /api/runs and GET
// /api/runs/{id} say "stored": true of a run from the history, with when
// it started, and say nothing of the kind of a run in memory.
func TestStoredRunsSaySo(t *testing.T) {
	dir := t.TempDir()
	var old string
	t.Run("before the restart", func(t *testing.T) {
		ts := withHistory(t, dir)
		old, _ = ts.startRun(t, `{"message": "Send an email to john@example.com about the standup"}`)
		ts.events(t, old, 0)
	})

	ts := withHistory(t, dir)
	live, _ := ts.startRun(t, `{"message": "hi"}`)
	ts.events(t, live, 0)
	_, v := ts.get(t, "/api/runs")
	list, _ := v["runs"].([]any)
	stored := map[string]any{}
	for _, item := range list {
		run, _ := item.(map[string]any)
		stored[run["id"].(string)] = run["stored"]
	}
	if len(list) != 2 || stored[old] != true || stored[live] != nil {
		t.Errorf("GET /api/runs = %v; want the stored run with \"stored\": true, the one in memory without it", v)
	}
	for id, want := range map[string]any{old: true, live: nil} {
		status, snap := ts.get(t, "/api/runs/"+id)
		if started, _ := snap["started_at"].(string); status != http.StatusOK || snap["stored"] != want || started == "" {
			t.Errorf("GET /api/runs/%s = %d, stored %v, started_at %q; want stored %v and when it started", id, status, snap["stored"], started, want)
		}
	}
}

func TestALockedHistoryLeavesRunsInMemory(t *testing.T) {
	dir := t.TempDir()
	first, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	_, err = store.Open(dir, store.Options{})
	var e *store.Error
	if !errors.As(err, &e) || e.Problem != store.Locked {
		t.Fatalf("second Open: %v; want a Locked *store.Error", err)
	}
	ts := start(t, setup{config: func(cfg *server.Config) { cfg.Hub.SetNoArchive(err.Error()) }})
	id, _ := ts.startRun(t, `{"message": "hi"}`)
	if events := ts.events(t, id, 0); events[len(events)-1].typ != string(agent.RunFinished) {
		t.Fatalf("the run in memory ended with %v", events[len(events)-1])
	}
	status, v := ts.get(t, "/api/runs")
	if list, _ := v["runs"].([]any); status != http.StatusOK || len(list) != 1 {
		t.Fatalf("GET /api/runs = %d %v", status, v)
	}
	_, health := ts.get(t, "/api/health")
	// The runs list says it too, for a page that polls it.
	for what, history := range map[string]any{"health": health["history"], "runs": v["history"]} {
		if h, _ := history.(map[string]any); h["on"] != false || h["off"] != err.Error() {
			t.Fatalf("%s history = %v; want off, saying %q", what, history, err)
		}
	}
}

// A run the history holds but cannot read, its events damaged, answers
// that it cannot be read and why (500), not that it never existed (404).
func TestADamagedStoredRunSaysSo(t *testing.T) {
	dir := t.TempDir()
	var id string
	t.Run("before the damage", func(t *testing.T) {
		ts := withHistory(t, dir)
		id, _ = ts.startRun(t, `{"message": "Send an email to john@example.com about the standup"}`)
		ts.events(t, id, 0)
	})
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE chunks SET events = x'00ff00ff' WHERE run_id = ?`, id)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	ts := withHistory(t, dir)
	for _, path := range []string{"/api/runs/" + id, "/api/runs/" + id + "/events"} {
		status, v := ts.get(t, path)
		if msg, _ := v["error"].(string); status != http.StatusInternalServerError || !strings.Contains(msg, "cannot be read from the history") || !strings.Contains(msg, "is damaged") {
			t.Errorf("GET %s = %d %v; want 500 saying the history is damaged", path, status, v)
		}
	}
	if status, v := ts.get(t, "/api/runs/r-0000000000000000"); status != http.StatusNotFound {
		t.Errorf("GET of a run never run = %d %v; want 404", status, v)
	}
}

// A history file deleted while the server runs: /api/health and /api/runs
// say the history is off, and why, instead of on.
func TestADeletedHistorySaysItIsOff(t *testing.T) {
	dir := t.TempDir()
	ts := withHistory(t, dir)
	id, _ := ts.startRun(t, `{"message": "hi"}`)
	ts.events(t, id, 0)
	if err := os.Remove(filepath.Join(dir, store.FileName)); err != nil {
		t.Fatal(err)
	}
	_, health := ts.get(t, "/api/health")
	_, list := ts.get(t, "/api/runs")
	for what, history := range map[string]any{"health": health["history"], "runs": list["history"]} {
		if h, _ := history.(map[string]any); h["on"] != false || !strings.Contains(fmt.Sprint(h["off"]), "was deleted while toolscope was using it") {
			t.Errorf("%s history = %v; want off, saying the file was deleted", what, history)
		}
	}
}
