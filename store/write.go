package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
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
func (s *Store) Finished(r *runs.Run) {
	s.behind.Delete(r.ID)
	s.mark(mark{run: r, finished: true})
}

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

// Event queues e for the writer. A full buffer does not make the run
// wait: the event, and the run's later ones, are left to the run's end,
// which writes those the queue did not take. The queue so holds the first
// events of each run, in order, and never a gap.
func (s *Store) Event(runID string, e runs.Encoded) {
	if s.failed.Load() != nil {
		return
	}
	if _, ok := s.behind.Load(runID); ok {
		s.dropped.Add(1)
		return
	}
	select {
	case s.events <- queued{runID, e}:
	default:
		s.behind.Store(runID, true)
		if s.dropped.Add(1) == 1 {
			slog.Warn("history: the writer fell behind; events are written when their run ends", "path", s.path)
		}
	}
}

// write is the writer goroutine: it commits the queued events and marks
// in batches until Close.
func (s *Store) write() {
	defer close(s.done)
	tick := time.NewTicker(s.opts.FlushEvery)
	defer tick.Stop()
	var batch []queued
	written := map[string]int{} // events written of each run in progress
	for {
		select {
		case q := <-s.events:
			if batch = append(batch, q); len(batch) < s.opts.BatchEvents {
				continue
			}
		case <-s.wake:
		case <-tick.C:
		case done := <-s.syncs:
			batch = s.flush(s.drain(batch), written)
			close(done)
			continue
		case <-s.quit:
			s.flush(s.drain(batch), written)
			return
		}
		batch = s.flush(batch, written)
	}
}

// drain adds to batch the events queued now.
func (s *Store) drain(batch []queued) []queued {
	for {
		select {
		case q := <-s.events:
			batch = append(batch, q)
		default:
			return batch
		}
	}
}

// flush commits batch and the marks made so far in one transaction, and
// returns batch emptied for reuse.
func (s *Store) flush(batch []queued, written map[string]int) []queued {
	s.mu.Lock()
	marks := s.marks
	s.marks = nil
	s.mu.Unlock()
	if len(marks) > 0 {
		// A run's end comes after all its events: those still queued
		// belong in this commit, so that the end need not rewrite them.
		batch = s.drain(batch)
	}
	if len(batch) == 0 && len(marks) == 0 || s.failed.Load() != nil {
		return batch[:0]
	}
	if err := s.commit(batch, marks, written); err != nil {
		s.fail(err)
	}
	return batch[:0]
}

func (s *Store) commit(batch []queued, marks []mark, written map[string]int) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertEvents(tx, batch); err != nil {
		return err
	}
	for _, q := range batch {
		written[q.runID]++
	}
	finished := false
	for _, m := range marks {
		if m.finished {
			finished = true
			err = s.writeEnd(tx, m.run, written)
		} else {
			err = writeStart(tx, m.run)
		}
		if err != nil {
			return err
		}
	}
	if finished {
		if err := s.retain(tx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func writeStart(tx *sql.Tx, r *runs.Run) error {
	var fork string
	if r.ForkedFrom != nil {
		b, _ := json.Marshal(r.ForkedFrom) // a struct of a string and an int
		fork = string(b)
	}
	_, err := tx.Exec(`INSERT OR IGNORE INTO runs (id, conversation_id, message, source, user_agent, forked_from, status, started_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.ConversationID, r.Message, string(r.Source), r.UserAgent, fork,
		statusRunning, r.Started.UnixMicro())
	return err
}

// writeEnd records how r ended, and writes the events the queue left
// out when it was full: all those after the ones it took.
func (s *Store) writeEnd(tx *sql.Tx, r *runs.Run, written map[string]int) error {
	events := r.Log()
	var rest []queued
	for _, e := range events[min(written[r.ID], len(events)):] {
		rest = append(rest, queued{r.ID, e})
	}
	if err := insertEvents(tx, rest); err != nil {
		return err
	}
	delete(written, r.ID)
	res, ended, _ := r.Outcome()
	var errText string
	if res.Err != nil {
		errText = res.Err.Error()
	}
	backend, model, tools := describe(events)
	_, err := tx.Exec(`UPDATE runs SET status = ?, answer = ?, error = ?, finished_at = ?, rounds = ?,
		backend = ?, model = ?, tools = ? WHERE id = ?`, string(res.Reason), res.Text, errText, ended.UnixMicro(),
		res.Rounds, backend, model, tools, r.ID)
	return err
}

// rowsPerInsert is how many events one INSERT writes: one statement per
// event would cost the writer most of its time in database/sql.
const rowsPerInsert = 500

// insertEvents writes events, rowsPerInsert to a statement.
func insertEvents(tx *sql.Tx, events []queued) error {
	var full *sql.Stmt
	args := make([]any, 0, 4*rowsPerInsert)
	for chunk := range slices.Chunk(events, rowsPerInsert) {
		args = args[:0]
		for _, q := range chunk {
			args = append(args, q.runID, q.enc.Seq, string(q.enc.Type), q.enc.JSON)
		}
		query := `INSERT OR IGNORE INTO events (run_id, seq, type, json) VALUES (?, ?, ?, ?)` +
			strings.Repeat(`, (?, ?, ?, ?)`, len(chunk)-1)
		var err error
		switch {
		case len(chunk) < rowsPerInsert:
			_, err = tx.Exec(query, args...)
		case full == nil:
			if full, err = tx.Prepare(query); err != nil {
				return err
			}
			defer full.Close()
			fallthrough
		default:
			_, err = full.Exec(args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// describe finds in a run's events its backend and model, and the tools
// it called.
func describe(events []runs.Encoded) (backend, model, tools string) {
	var called []string
	for _, enc := range events {
		if enc.Type != agent.RunStarted && enc.Type != agent.ToolStarted {
			continue // decoding every token would cost the writer most of its time
		}
		e := enc.Event()
		switch {
		case e.Run != nil:
			backend, model = e.Run.Backend, e.Run.Model
		case e.Call != nil && !slices.Contains(called, e.Call.Name):
			called = append(called, e.Call.Name)
		}
	}
	return backend, model, strings.Join(called, " ")
}

// retain drops the oldest finished runs beyond KeepRuns.
func (s *Store) retain(tx *sql.Tx) error {
	const old = `SELECT id FROM runs WHERE status != 'running' ORDER BY started_at DESC LIMIT -1 OFFSET ?`
	_, err := tx.Exec(`DELETE FROM events WHERE run_id IN (`+old+`)`, s.opts.KeepRuns)
	if err == nil {
		_, err = tx.Exec(`DELETE FROM runs WHERE id IN (`+old+`)`, s.opts.KeepRuns)
	}
	return err
}

// errNoRun is Load's error for a run the database does not hold.
var errNoRun = errors.New("no such run in the history")
