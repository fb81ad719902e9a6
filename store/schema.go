package store

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/toolscope/toolscope/runs"

	"github.com/toolscope/toolscope/agent"
)

// schemaVersion is the layout this toolscope writes, in PRAGMA
// user_version: a database of a newer one is refused, never rewritten;
// one of an older one is brought up to it. Layout 1 kept an event a row.
const schemaVersion = 3

// Times are Unix microseconds; tools is the names of the tools a run
// called, each once, space-separated, for LIKE to search. A chunk is
// events of a run numbered from first_seq on, each an agent.Event's JSON
// and a newline.
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
	dialect         TEXT NOT NULL DEFAULT '',
	mode            TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,
	answer          TEXT NOT NULL DEFAULT '',
	error           TEXT NOT NULL DEFAULT '',
	started_at      INTEGER NOT NULL,
	finished_at     INTEGER,
	rounds          INTEGER NOT NULL DEFAULT 0,
	tools           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_by_start ON runs (started_at);
CREATE TABLE IF NOT EXISTS chunks (
	run_id    TEXT NOT NULL,
	first_seq INTEGER NOT NULL,
	events    BLOB NOT NULL,
	PRIMARY KEY (run_id, first_seq)
) WITHOUT ROWID;
`

// statusRunning is the status of a run in progress; a finished run's is
// its agent.Reason.
const statusRunning = "running"

// migrate creates the tables, refusing a newer layout, another
// program's database or a damaged one before it changes anything and bringing an older
// layout up to date, and marks the runs that were in progress when a
// server stopped as cancelled. Its writes take the database's exclusive
// lock, held from then on.
func migrate(db *sql.DB) error {
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if version > schemaVersion {
		return &Error{Problem: Newer, Err: fmt.Errorf("layout %d; this toolscope knows %d", version, schemaVersion)}
	}
	if version == 0 {
		// toolscope marks every database it writes: an unmarked one
		// with tables is another program's.
		var tables int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table'`).Scan(&tables); err != nil {
			return err
		}
		if tables > 0 {
			return &Error{Problem: Corrupt, Err: fmt.Errorf("an SQLite database of another program: it has %d tables and no toolscope layout", tables)}
		}
	}
	if err := checkIntegrity(db); err != nil {
		return err
	}
	// Outside any transaction, as SQLite requires.
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	if version == 1 || version == 2 {
		// Layout 3 says what each run ran on, for the Runs list; the runs
		// of before say their model alone.
		if _, err := tx.Exec(`ALTER TABLE runs ADD COLUMN dialect TEXT NOT NULL DEFAULT '';
			ALTER TABLE runs ADD COLUMN mode TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
	}
	if version == 1 {
		if err := fromLayout1(tx); err != nil {
			return err
		}
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

// checkIntegrity refuses a database SQLite finds damaged. Damage past the
// first pages would otherwise show only when a run stored there is read.
// quick_check reads every page once (2 to 4 ms a MB, BenchmarkQuickCheck:
// a quarter of a second for 100 MB); integrity_check, which also matches
// each index against its table, takes up to twice as long.
func checkIntegrity(db *sql.DB) error {
	var found string
	if err := db.QueryRow(`PRAGMA quick_check(1)`).Scan(&found); err != nil {
		return err
	}
	if found != "ok" {
		found = strings.ReplaceAll(strings.TrimPrefix(found, "*** in database main ***\n"), "\n", "; ")
		return &Error{Problem: Corrupt, Err: fmt.Errorf("SQLite's quick_check found: %s", found)}
	}
	return nil
}

// fromLayout1 moves layout 1's events, a row each, into chunks: one for
// each run's events that follow each other, written as soon as it ends,
// so that no more than one run's events are held at once.
func fromLayout1(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT run_id, seq, json FROM events ORDER BY run_id, seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		c      chunker
		runID  string
		events []runs.Encoded
	)
	write := func() error {
		if len(events) == 0 {
			return nil
		}
		_, err := tx.Exec(insertChunk, runID, events[0].Seq, c.pack(events))
		events = events[:0]
		return err
	}
	for rows.Next() {
		var id string
		var e runs.Encoded
		if err := rows.Scan(&id, &e.Seq, &e.JSON); err != nil {
			return err
		}
		if id != runID || len(events) > 0 && e.Seq != events[0].Seq+len(events) {
			if err := write(); err != nil {
				return err
			}
			runID = id
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	rows.Close()
	_, err = tx.Exec(`DROP TABLE events`)
	return err
}
