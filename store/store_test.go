package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/tools"
)

const request = "Send an email to john@example.com about tomorrow's standup"

func newAgent(t testing.TB) *agent.Agent {
	t.Helper()
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})
}

func asJSON(events []agent.Event) string {
	b, _ := json.Marshal(events)
	return string(b)
}

func open(t testing.TB, dir string, opts store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runAll runs each message to its end on a Hub that records in s, then
// closes the Hub, and returns the runs' events by ID.
func runAll(t *testing.T, s *store.Store, messages ...string) map[string][]agent.Event {
	t.Helper()
	h := runs.NewHub(len(messages) + 1)
	h.SetArchive(s)
	got := map[string][]agent.Event{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, m := range messages {
		r, err := h.Start(runs.Spec{Message: m, Agent: newAgent(t)})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			events := slices.Collect(r.Events(context.Background(), 0))
			mu.Lock()
			got[r.ID] = events
			mu.Unlock()
		})
	}
	wg.Wait()
	h.Close()
	s.Sync()
	return got
}

func TestRunsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	want := runAll(t, s, request)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir, store.Options{})
	defer s.Close()
	h := runs.NewHub(10)
	h.SetArchive(s)
	defer h.Close()
	list, err := h.Find("", 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("Find = %+v, %v; want the run of before the restart", list, err)
	}
	sum := list[0]
	if sum.Message != request || sum.Status != string(agent.Answered) {
		t.Fatalf("summary = %+v", sum)
	}
	if want := (runs.Setup{Model: "toolscope-demo", Dialect: "hermes", Mode: "raw"}); sum.Setup != want {
		t.Errorf("the stored run ran on %+v, want %+v", sum.Setup, want)
	}
	r, err := h.Get(sum.ID)
	if err != nil {
		t.Fatalf("Get does not find the stored run: %v", err)
	}
	played := slices.Collect(r.Events(context.Background(), 0))
	if asJSON(played) != asJSON(want[sum.ID]) {
		t.Fatalf("replayed %d events, want the %d the run sent", len(played), len(want[sum.ID]))
	}
	if snap := r.Snapshot(); !snap.Done || snap.Reason != agent.Answered || snap.Answer == "" {
		t.Fatalf("snapshot = %+v", snap)
	}
	resumed := slices.Collect(r.Events(context.Background(), 3))
	if len(resumed) != len(played)-3 || resumed[0].Seq != 4 {
		t.Fatalf("resuming after 3 gave %d events from seq %d", len(resumed), resumed[0].Seq)
	}
}

func TestFindSearchesTextModelToolAndOutcome(t *testing.T) {
	s := open(t, t.TempDir(), store.Options{})
	defer s.Close()
	runAll(t, s, request, "What is the weather in Paris?")
	for _, tc := range []struct {
		query string
		want  int
	}{{"", 2}, {"PARIS", 1}, {"send_mail", 1}, {"answered", 2}, {"toolscope-demo", 2}, {"hermes", 2}, {"nothing like it", 0}, {"%", 0}, {"\x00zzzz", 0}} {
		list, err := s.Find(tc.query, 10)
		if err != nil || len(list) != tc.want {
			t.Errorf("Find(%q) = %d runs, %v; want %d", tc.query, len(list), err, tc.want)
		}
	}
}

func TestConcurrentRunsAreKeptWhole(t *testing.T) {
	// Flushing every millisecond writes each run in many chunks, while
	// the other runs write theirs.
	s := open(t, t.TempDir(), store.Options{FlushEvery: time.Millisecond})
	defer s.Close()
	messages := make([]string, 8)
	for i := range messages {
		messages[i] = fmt.Sprintf("%s, number %d", request, i)
	}
	want := runAll(t, s, messages...)
	for id, events := range want {
		r, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Collect(r.Events(context.Background(), 0)); asJSON(got) != asJSON(events) {
			t.Errorf("run %s: stored %d events, want %d", id, len(got), len(events))
		}
	}
}

func TestRetentionDropsTheOldest(t *testing.T) {
	s := open(t, t.TempDir(), store.Options{KeepRuns: 2})
	defer s.Close()
	var ids []string
	for i := range 3 {
		for id := range runAll(t, s, fmt.Sprint("run ", i)) {
			ids = append(ids, id)
		}
	}
	list, err := s.Find("", 10)
	if err != nil || len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[1] {
		t.Fatalf("kept %+v, %v; want the newest 2 of %v", list, err, ids)
	}
	if _, err := s.Load(ids[0]); err == nil {
		t.Fatal("the oldest run can still be loaded")
	}
}

func TestALockedDatabaseIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	defer s.Close()
	_, err := store.Open(dir, store.Options{})
	var e *store.Error
	if !errors.As(err, &e) || e.Problem != store.Locked || e.Path != filepath.Join(dir, store.FileName) {
		t.Fatalf("second Open: %v; want a Locked *store.Error", err)
	}
	// The first still works.
	runAll(t, s, request)
	if list, err := s.Find("", 10); err != nil || len(list) != 1 {
		t.Fatalf("Find = %v, %v", list, err)
	}
}

func TestACorruptFileIsLeftAlone(t *testing.T) {
	for name, garbage := range map[string][]byte{
		"short":          []byte("not a database"),
		"long":           bytes.Repeat([]byte("garbage!"), 1024),
		"damaged sqlite": append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 8192)...),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, store.FileName)
			if err := os.WriteFile(path, garbage, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := store.Open(dir, store.Options{})
			var e *store.Error
			if !errors.As(err, &e) || e.Problem != store.Corrupt {
				t.Fatalf("Open: %v; want a Corrupt *store.Error", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, garbage) {
				t.Fatal("the file was changed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("files in the data directory: %v; want the database only", entries)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	defer s.Close()
	if st := s.Status(); !st.On || st.Path != filepath.Join(dir, store.FileName) || st.Off != "" {
		t.Fatalf("Status = %+v", st)
	}
}
