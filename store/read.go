package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// Load returns a finished run as recorded: viewers replay its events and
// then their iteration ends. Its error is runs.ErrNoRun for a run the
// database does not hold, a Corrupt *Error for one it cannot read.
func (s *Store) Load(id string) (*runs.Run, error) {
	var st runs.Stored
	var fork, errText string
	var started int64
	var finished sql.NullInt64
	err := s.db.QueryRow(`SELECT id, conversation_id, message, source, user_agent, forked_from, status, answer, error,
		started_at, finished_at, rounds FROM runs WHERE id = ? AND status != ?`, id, statusRunning).Scan(
		&st.ID, &st.ConversationID, &st.Message, &st.Source, &st.UserAgent, &fork, &st.Status, &st.Result.Text, &errText,
		&started, &finished, &st.Result.Rounds)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, runs.ErrNoRun
	}
	if err != nil {
		return nil, classify(s.path, err)
	}
	st.Started = time.UnixMicro(started)
	if finished.Valid {
		st.Ended = time.UnixMicro(finished.Int64)
	}
	st.Result.Reason = agent.Reason(st.Status)
	if errText != "" {
		st.Result.Err = errors.New(errText)
	}
	if fork != "" {
		st.ForkedFrom = new(runs.Fork)
		_ = json.Unmarshal([]byte(fork), st.ForkedFrom) // writeStart wrote it
	}
	if st.Events, err = s.loadEvents(id); err != nil {
		return nil, classify(s.path, err)
	}
	return runs.Restore(st), nil
}

// loadEvents reads a run's events up to the first gap, which only a server
// that stopped mid-run leaves: viewers resume by sequence number.
func (s *Store) loadEvents(id string) ([]runs.Encoded, error) {
	rows, err := s.db.Query(`SELECT first_seq, events FROM chunks WHERE run_id = ? ORDER BY first_seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var events []runs.Encoded
	for rows.Next() {
		var first int
		var chunk []byte
		if err := rows.Scan(&first, &chunk); err != nil {
			return nil, err
		}
		if first != len(events)+1 {
			break
		}
		lines, err := unpack(chunk)
		if err != nil {
			return nil, &Error{Path: s.path, Problem: Corrupt, Err: err}
		}
		for _, line := range lines {
			var head struct {
				Type agent.Type `json:"type"`
			}
			if err := json.Unmarshal(line, &head); err != nil {
				return nil, &Error{Path: s.path, Problem: Corrupt, Err: fmt.Errorf("run %s, event %d: %w", id, len(events)+1, err)}
			}
			events = append(events, runs.Encoded{Seq: len(events) + 1, Type: head.Type, JSON: line})
		}
	}
	return events, rows.Err()
}

// Find lists the finished runs recorded whose message, answer, model,
// dialect, tools or status contain query, ignoring ASCII case (all for ""), newest
// first, at most limit of them (all for 0). A run in progress is the
// Hub's to list: only it knows whether the run is paused.
func (s *Store) Find(query string, limit int) ([]runs.Summary, error) {
	if strings.ContainsRune(query, 0) {
		// SQLite's LIKE stops at a NUL: the pattern would shrink to
		// everything, and a run's text holds none worth finding.
		return []runs.Summary{}, nil
	}
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(query) + "%"
	rows, err := s.db.Query(`SELECT id, source, user_agent, message, status, started_at, forked_from, model, dialect, mode FROM runs
		WHERE status != ?3 AND (message LIKE ?1 ESCAPE '\' OR answer LIKE ?1 ESCAPE '\' OR model LIKE ?1 ESCAPE '\' OR dialect LIKE ?1 ESCAPE '\'
			OR tools LIKE ?1 ESCAPE '\' OR status LIKE ?1 ESCAPE '\')
		ORDER BY started_at DESC LIMIT ?2`, like, limit, statusRunning)
	if err != nil {
		return nil, classify(s.path, err)
	}
	defer rows.Close()
	list := []runs.Summary{}
	for rows.Next() {
		var sum runs.Summary
		var started int64
		var fork string
		if err := rows.Scan(&sum.ID, &sum.Source, &sum.UserAgent, &sum.Message, &sum.Status, &started, &fork, &sum.Model, &sum.Dialect, &sum.Mode); err != nil {
			return nil, classify(s.path, err)
		}
		sum.Started = time.UnixMicro(started)
		if fork != "" {
			sum.ForkedFrom = new(runs.Fork)
			_ = json.Unmarshal([]byte(fork), sum.ForkedFrom)
		}
		list = append(list, sum)
	}
	return list, rows.Err()
}
