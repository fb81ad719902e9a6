package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
)

// A disk that fills up mid-session turns the history off: the run goes on
// and reaches its viewers whole, Status says why, and the runs written
// before stay readable.
func TestAFullDiskTurnsTheHistoryOff(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})
	h := runs.NewHub(4)
	h.SetArchive(s)
	play := func(message string) (*runs.Run, []agent.Event) {
		r, err := h.Start(runs.Spec{Message: message, Agent: a})
		if err != nil {
			t.Fatal(err)
		}
		events := slices.Collect(r.Events(context.Background(), 0))
		s.Sync()
		return r, events
	}
	before, _ := play("Send an email to john@example.com about the standup")

	// SQLite answers SQLITE_FULL, as on a full disk, once the file would
	// grow past the pages it has.
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Send an email to john@example.com about the standup. ", 400)
	r, events := play(long)
	if last := events[len(events)-1]; last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Fatalf("the run on a full disk ended with %+v, want it answered", last)
	}
	if st := s.Status(); st.On || !strings.Contains(st.Off, "the disk is full") || !strings.Contains(st.Off, "in memory only") {
		t.Fatalf("Status = %+v, want the history off because the disk is full", st)
	}
	if got, err := h.Get(r.ID); err != nil || len(slices.Collect(got.Events(context.Background(), 0))) != len(events) {
		t.Fatal("the run on a full disk is not kept in memory whole")
	}
	h.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("reopening after the disk filled: %v", err)
	}
	defer s.Close()
	if _, err := s.Load(before.ID); err != nil {
		t.Fatalf("the run written before the disk filled: %v", err)
	}
}

// A chunk that does not decompress is a damaged database: Load says so,
// and changes nothing.
func TestADamagedChunkIsCorrupt(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	h := runs.NewHub(4)
	h.SetArchive(s)
	r, err := h.Start(runs.Spec{Message: "hello", Agent: agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})})
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	s.Sync()
	if _, err := s.db.Exec(`UPDATE chunks SET events = x'00ff00ff' WHERE run_id = ?`, r.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Load(r.ID)
	var e *Error
	if !errors.As(err, &e) || e.Problem != Corrupt || e.Path != s.Path() {
		t.Fatalf("Load of a damaged run: %v; want a Corrupt *Error", err)
	}
}
