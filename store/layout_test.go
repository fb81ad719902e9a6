package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/tools"
)

// layout1 is the database toolscope wrote before events were kept in
// chunks: a finished run with an event a row, and a run cut short whose
// events have a gap, which a reader stops at.
const layout1 = `
CREATE TABLE runs (
	id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, message TEXT NOT NULL, source TEXT NOT NULL,
	user_agent TEXT NOT NULL DEFAULT '', forked_from TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '',
	backend TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, answer TEXT NOT NULL DEFAULT '',
	error TEXT NOT NULL DEFAULT '', started_at INTEGER NOT NULL, finished_at INTEGER,
	rounds INTEGER NOT NULL DEFAULT 0, tools TEXT NOT NULL DEFAULT '');
CREATE INDEX runs_by_start ON runs (started_at);
CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, json BLOB NOT NULL,
	PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
INSERT INTO runs VALUES ('r-old', 'c-old', 'hello', 'page', '', '', 'toolscope-demo', 'demo', 'answered',
	'Hi!', '', 1764547200000000, 1764547201000000, 1, ''),
	('r-cut', 'c-cut', 'count', 'page', '', '', 'toolscope-demo', 'demo', 'cancelled',
	'', 'toolscope stopped before the run finished', 1764547300000000, NULL, 0, '');
INSERT INTO events VALUES
	('r-old', 1, 'run_started', '{"seq":1,"type":"run_started","at_ms":0}'),
	('r-old', 2, 'token', '{"seq":2,"type":"token","at_ms":5,"round":1,"text":"Hi!"}'),
	('r-old', 3, 'run_finished', '{"seq":3,"type":"run_finished","at_ms":9,"reason":"answered"}'),
	('r-cut', 1, 'run_started', '{"seq":1,"type":"run_started","at_ms":0}'),
	('r-cut', 2, 'token', '{"seq":2,"type":"token","at_ms":5,"round":1,"text":"one "}'),
	('r-cut', 4, 'token', '{"seq":4,"type":"token","at_ms":7,"round":1,"text":"three "}');
PRAGMA user_version = 1;
`

func TestAnOlderLayoutIsBroughtUpToDate(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(layout1); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := open(t, dir, store.Options{})
	defer s.Close()
	r, err := s.Load("r-old")
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Type
	for e := range r.Events(context.Background(), 0) {
		got = append(got, e.Type)
	}
	want := []agent.Type{agent.RunStarted, agent.Token, agent.RunFinished}
	if !slices.Equal(got, want) {
		t.Fatalf("events of the old run: %v, want %v", got, want)
	}
	if snap := r.Snapshot(); snap.Answer != "Hi!" || snap.Events[1].Text != "Hi!" {
		t.Fatalf("old run = %+v", snap)
	}
	// Layout 1 did not keep a run's dialect and mode: the old run says its
	// model alone.
	list, err := s.Find("hello", 0)
	if err != nil || len(list) != 1 || list[0].Setup != (runs.Setup{Model: "toolscope-demo"}) {
		t.Fatalf("Find(hello) = %+v, %v; want the old run, with its model", list, err)
	}
	cut, err := s.Load("r-cut")
	if err != nil {
		t.Fatal(err)
	}
	if snap := cut.Snapshot(); len(snap.Events) != 2 || snap.Events[1].Text != "one " {
		t.Fatalf("the run cut short has events %+v, want the 2 before the gap", snap.Events)
	}
}

// hanging is a model that writes a few tokens and then waits for the run
// to be cancelled.
type hanging struct {
	*demo.Model
	wrote chan struct{}
}

func (m *hanging) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	for _, tok := range []string{"one ", "two ", "three "} {
		if err := fn(llm.Chunk{Content: tok}); err != nil {
			return llm.Stats{}, err
		}
	}
	close(m.wrote)
	<-ctx.Done()
	return llm.Stats{}, ctx.Err()
}

func TestARunInProgressIsWrittenAsItGoes(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	model := &hanging{Model: demo.New(demo.Config{}), wrote: make(chan struct{})}
	h := runs.NewHub(4)
	h.SetArchive(s)
	r, err := h.Start(runs.Spec{Message: "count", Agent: agent.New(agent.Config{Backend: model, Tools: registry})})
	if err != nil {
		t.Fatal(err)
	}
	<-model.wrote
	live := r.Log()
	s.Sync()
	// Only the Hub lists a run in progress: it alone knows if it is paused.
	if list, err := s.Find("", 0); err != nil || len(list) != 0 {
		t.Fatalf("Find lists %+v, %v while the run is in progress; want nothing", list, err)
	}
	// The server dies with the run still going: the Store is closed
	// before the Hub can tell it the run ended.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	h.Close()

	s = open(t, dir, store.Options{})
	defer s.Close()
	stored, err := s.Load(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	snap := stored.Snapshot()
	if snap.Reason != agent.Cancelled || snap.Error != "toolscope stopped before the run finished" {
		t.Fatalf("the interrupted run was kept as %q (%q)", snap.Reason, snap.Error)
	}
	if len(snap.Events) != len(live) {
		t.Fatalf("kept %d events of the interrupted run, want the %d it had recorded", len(snap.Events), len(live))
	}
	if last := snap.Events[len(snap.Events)-1]; last.Type != agent.Token || last.Text != "three " {
		t.Fatalf("the last event kept is %+v, want the third token", last)
	}
}

// A database toolscope cannot use is refused before anything in it
// changes, its journal mode included: another program's, or one a newer
// toolscope wrote.
func TestADatabaseNotOursIsLeftAsItIs(t *testing.T) {
	for _, c := range []struct {
		name, sql string
		want      store.Problem
	}{
		{"another program's", `CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ann');`, store.Corrupt},
		{"a newer toolscope's", `CREATE TABLE runs (id TEXT); PRAGMA user_version = 99;`, store.Newer},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, store.FileName)
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(c.sql); err != nil {
				t.Fatal(err)
			}
			db.Close()
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = store.Open(dir, store.Options{})
			var e *store.Error
			if !errors.As(err, &e) || e.Problem != c.want {
				t.Fatalf("Open: %v; want a %s *store.Error", err, c.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("the database was changed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files in the data directory: %v; want the database alone", entries)
			}
		})
	}
}
