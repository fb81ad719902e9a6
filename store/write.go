package store

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// Started records that r started. It never waits for the database.
func (s *Store) Started(r *runs.Run) { s.mark(mark{run: r}) }

// Finished records how r ended, with every event it recorded. It never
// waits for the database.
func (s *Store) Finished(r *runs.Run) { s.mark(mark{run: r, finished: true}) }

func (s *Store) mark(m mark) {
	if s.failed.Load() != nil {
		return
	}
	s.mu.Lock()
	s.marks = append(s.marks, m)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // the writer is woken already
	}
}

// writer is the state of the writer goroutine.
type writer struct {
	// live holds the runs in progress, each with how many of its events
	// are written.
	live map[*runs.Run]int
	// oldest is when the oldest event of the commit in progress was
	// recorded, for Lag.
	oldest time.Time
	chunker
	stmts
}

// stmts are the writer's statements, prepared once: SQLite takes longer
// to parse one than to write a chunk of a hundred tokens.
type stmts struct {
	start, chunk, end, dropChunks, dropRuns *sql.Stmt
}

// Runs beyond the newest n finished ones, for retention.
const oldRuns = `SELECT id FROM runs WHERE status != 'running' ORDER BY started_at DESC LIMIT -1 OFFSET ?`

const insertChunk = `INSERT INTO chunks (run_id, first_seq, events) VALUES (?, ?, ?)`

func prepare(db *sql.DB) (stmts, error) {
	var st stmts
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&st.start, `INSERT OR IGNORE INTO runs (id, conversation_id, message, source, user_agent, forked_from, status, started_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`},
		{&st.chunk, insertChunk},
		{&st.end, `UPDATE runs SET status = ?, answer = ?, error = ?, finished_at = ?, rounds = ?,
			backend = ?, model = ?, dialect = ?, mode = ?, tools = ? WHERE id = ?`},
		{&st.dropChunks, `DELETE FROM chunks WHERE run_id IN (` + oldRuns + `)`},
		{&st.dropRuns, `DELETE FROM runs WHERE id IN (` + oldRuns + `)`},
	} {
		var err error
		if *p.stmt, err = db.Prepare(p.query); err != nil {
			return st, err
		}
	}
	return st, nil
}

// write is the writer goroutine: every FlushEvery, and at each run's start
// and end, it commits in one transaction what the runs recorded since.
func (s *Store) write(w *writer) {
	defer close(s.done)
	tick := time.NewTicker(s.opts.FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.wake:
		case <-tick.C:
		case done := <-s.syncs:
			s.flush(w)
			close(done)
			continue
		case <-s.quit:
			s.flush(w)
			return
		}
		s.flush(w)
	}
}

// flush commits the runs started and finished since the last flush, and
// the events every run in progress recorded since, unless the file is
// gone: it is looked at each time, idle or not, so that the warning comes
// when the file goes.
func (s *Store) flush(w *writer) {
	s.checkFile()
	s.mu.Lock()
	marks := s.marks
	s.marks = nil
	s.mu.Unlock()
	if s.failed.Load() != nil {
		clear(w.live) // the runs' logs are the Hub's to drop now
		return
	}
	if len(marks) == 0 && !w.pending() {
		s.lag.Store(0)
		return
	}
	if err := s.commit(w, marks); err != nil {
		s.fail(err)
		clear(w.live)
	}
}

// pending reports whether a run in progress recorded events not written.
func (w *writer) pending() bool {
	for r, written := range w.live {
		if len(r.Log()) > written {
			return true
		}
	}
	return false
}

func (s *Store) commit(w *writer, marks []mark) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	finished := false
	w.oldest = time.Time{}
	for _, m := range marks {
		if !m.finished {
			w.live[m.run] = 0
			err = w.writeStart(tx, m.run)
		} else if err = w.writeEvents(tx, m.run); err == nil {
			delete(w.live, m.run)
			finished = true
			err = w.writeEnd(tx, m.run)
		}
		if err != nil {
			return err
		}
	}
	for r := range w.live {
		if err := w.writeEvents(tx, r); err != nil {
			return err
		}
	}
	if finished {
		// Retention: the oldest finished runs beyond KeepRuns go.
		if _, err := tx.Stmt(w.dropChunks).Exec(s.opts.KeepRuns); err != nil {
			return err
		}
		if _, err := tx.Stmt(w.dropRuns).Exec(s.opts.KeepRuns); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if !w.oldest.IsZero() {
		s.lag.Store(int64(time.Since(w.oldest)))
	}
	return nil
}

func (w *writer) writeStart(tx *sql.Tx, r *runs.Run) error {
	var fork string
	if r.ForkedFrom != nil {
		b, _ := json.Marshal(r.ForkedFrom) // a struct of a string and an int
		fork = string(b)
	}
	_, err := tx.Stmt(w.start).Exec(r.ID, r.ConversationID, r.Message, string(r.Source), r.UserAgent, fork,
		statusRunning, r.Started.UnixMicro())
	return err
}

// writeEvents writes the events r recorded since the last call as one
// chunk: one row, whatever their number, so that a token costs the
// writer little more than a copy of its bytes.
func (w *writer) writeEvents(tx *sql.Tx, r *runs.Run) error {
	events := r.Log()
	written := w.live[r]
	if written >= len(events) {
		return nil
	}
	if _, err := tx.Stmt(w.chunk).Exec(r.ID, written+1, w.pack(events[written:])); err != nil {
		return err
	}
	if at := recordedAt(r, events[written]); w.oldest.IsZero() || at.Before(w.oldest) {
		w.oldest = at
	}
	w.live[r] = len(events)
	return nil
}

// writeEnd records how r ended.
func (w *writer) writeEnd(tx *sql.Tx, r *runs.Run) error {
	res, ended, _ := r.Outcome()
	var errText string
	if res.Err != nil {
		errText = res.Err.Error()
	}
	backend, setup, tools := describe(r.Log())
	_, err := tx.Stmt(w.end).Exec(string(res.Reason), res.Text, errText, ended.UnixMicro(),
		res.Rounds, backend, setup.Model, setup.Dialect, setup.Mode, tools, r.ID)
	return err
}

// describe finds in a run's events its backend, what it ran on, and the
// tools it called.
func describe(events []runs.Encoded) (backend string, setup runs.Setup, tools string) {
	var called []string
	for _, enc := range events {
		if enc.Type != agent.RunStarted && enc.Type != agent.ToolStarted {
			continue // decoding every token would cost the writer most of its time
		}
		e := enc.Event()
		switch {
		case e.Run != nil:
			backend, setup = e.Run.Backend, runs.SetupOf(e)
		case e.Call != nil && !slices.Contains(called, e.Call.Name):
			called = append(called, e.Call.Name)
		}
	}
	return backend, setup, strings.Join(called, " ")
}

// recordedAt is about when r recorded enc: when the run started, plus the
// event's at_ms. Only the one field is decoded.
func recordedAt(r *runs.Run, enc runs.Encoded) time.Time {
	var e struct {
		AtMS int64 `json:"at_ms"`
	}
	_ = json.Unmarshal(enc.JSON, &e) // the run encoded it from an agent.Event
	return r.Started.Add(time.Duration(e.AtMS) * time.Millisecond)
}
