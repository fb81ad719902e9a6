package store

import (
	"database/sql"
	"fmt"

	"github.com/toolscope/toolscope/agent"
)

// schemaVersion is the layout this toolscope writes, in PRAGMA
// user_version: a database of a newer one is refused, never rewritten.
const schemaVersion = 1

// Times are Unix microseconds; tools is the names of the tools a run
// called, each once, space-separated, for LIKE to search.
const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id              TEXT PRIMARY KEY,
	conversation_id TEXT NOT NULL,
	message         TEXT NOT NULL,
	source          TEXT NOT NULL,
	user_agent      TEXT NOT NULL DEFAULT '',
	forked_from     TEXT NOT NULL DEFAULT '',
	model           TEXT NOT NULL DEFAULT '',
	backend         TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,
	answer          TEXT NOT NULL DEFAULT '',
	error           TEXT NOT NULL DEFAULT '',
	started_at      INTEGER NOT NULL,
	finished_at     INTEGER,
	rounds          INTEGER NOT NULL DEFAULT 0,
	tools           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_by_start ON runs (started_at);
CREATE TABLE IF NOT EXISTS events (
	run_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	type   TEXT NOT NULL,
	json   BLOB NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`

// statusRunning is the status of a run in progress; a finished run's is
// its agent.Reason.
const statusRunning = "running"

// migrate creates the tables, refusing a newer layout, and marks the runs
// that were in progress when a server stopped as cancelled. Its writes
// take the database's exclusive lock, held from then on.
func migrate(db *sql.DB) error {
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > schemaVersion {
		return &Error{Problem: Newer, Err: fmt.Errorf("layout %d; this toolscope knows %d", version, schemaVersion)}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE runs SET status = ?, error = ? WHERE status = ?`,
		string(agent.Cancelled), "toolscope stopped before the run finished", statusRunning); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
