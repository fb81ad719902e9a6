// Package store keeps runs and their events in an SQLite database, so that
// they outlive the server: it is the [runs.Archive] of a Hub.
//
// It promises:
//
//   - Never to slow or block a run. A run tells the Store when it starts
//     and ends, without waiting; one writer goroutine reads the events
//     each run has recorded in memory anyway ([runs.Run.Log]) and commits
//     them behind the live stream, every [Options.FlushEvery], a run's
//     new events as one row: a chunk of JSON Lines.
//   - Never to overwrite a database it cannot use. A database that another
//     toolscope holds, that is damaged (SQLite's quick_check reads every
//     page at [Open]) or not toolscope's, or that a newer toolscope wrote,
//     is an [*Error] from [Open] and is left as it is. A write that fails
//     later (a full disk), or a database file deleted or replaced while
//     open, turns history off, says why in [Store.Status], and leaves
//     what was written.
//   - To keep the newest finished runs, up to [Options.KeepRuns], dropping
//     the oldest first.
//
// A run still in progress when the server stopped is kept as cancelled.
package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/toolscope/toolscope/runs"
)

// FileName is the database's name in its data directory.
const FileName = "history.db"

// Defaults of Options fields left zero.
const (
	DefaultKeepRuns   = 100
	DefaultFlushEvery = 100 * time.Millisecond
)

// Options tune a Store.
type Options struct {
	// KeepRuns is the most finished runs kept; the oldest go first.
	KeepRuns int
	// FlushEvery is how often the writer commits the events of the runs
	// in progress: what a crash can lose of them.
	FlushEvery time.Duration
}

func (o Options) withDefaults() Options {
	if o.KeepRuns <= 0 {
		o.KeepRuns = DefaultKeepRuns
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	return o
}

// Problem is what is wrong with a database, in an [Error].
type Problem string

// Problems of a database.
const (
	Locked  Problem = "locked"  // another toolscope is using it
	Corrupt Problem = "corrupt" // damaged, or not a toolscope database
	Full    Problem = "full"    // the disk is full
	Newer   Problem = "newer"   // a newer toolscope wrote it
	Gone    Problem = "gone"    // the file was deleted or replaced while open: Err says which
	Failed  Problem = "failed"  // anything else: Err says what
)

// Error is why a database cannot be used. The database is left as it was.
type Error struct {
	Path    string
	Problem Problem
	Err     error
}

func (e *Error) Error() string {
	what := map[Problem]string{
		Locked:  "is in use by another toolscope",
		Corrupt: "is damaged or is not a toolscope database",
		Full:    "cannot be written: the disk is full",
		Newer:   "was written by a newer toolscope",
	}[e.Problem]
	switch {
	case e.Problem == Gone:
		what = e.Err.Error()
	case what == "":
		return fmt.Sprintf("history database %s cannot be used: %v", e.Path, e.Err)
	case e.Problem == Corrupt && e.Err != nil:
		what += ": " + e.Err.Error() // where the damage is, for whoever looks into it
	}
	return fmt.Sprintf("history database %s %s", e.Path, what)
}

func (e *Error) Unwrap() error { return e.Err }

// classify words err, from the database at path, as an *Error; one
// already is.
func classify(path string, err error) *Error {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &Error{Path: path, Problem: Locked, Err: err}
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return &Error{Path: path, Problem: Corrupt, Err: err}
		case sqlite3.SQLITE_FULL:
			return &Error{Path: path, Problem: Full, Err: err}
		}
	}
	return &Error{Path: path, Problem: Failed, Err: err}
}

// DefaultDir is the user's data directory for toolscope:
// $XDG_DATA_HOME/toolscope, else ~/.local/share/toolscope on Linux and
// other Unix systems; the platform's own elsewhere.
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "toolscope"), nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "toolscope"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "toolscope"), nil
	}
	return filepath.Join(home, ".local", "share", "toolscope"), nil
}

// Store is a database of runs. Create it with Open; it is safe for
// concurrent use.
type Store struct {
	db   *sql.DB
	path string
	file os.FileInfo // the file opened, to tell when another takes its place
	opts Options

	mu    sync.Mutex
	marks []mark // runs started or finished, in order, for the writer
	wake  chan struct{}
	syncs chan chan struct{} // Sync's requests
	quit  chan struct{}
	done  chan struct{}

	failed atomic.Pointer[Error] // set once a write fails: history is then off
	lag    atomic.Int64          // Lag's, in nanoseconds
}

// mark is a run that started, or finished.
type mark struct {
	run      *runs.Run
	finished bool
}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// Open opens, or creates, the database in dir, making dir if need be.
// While the Store is open no other toolscope can open it.
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &Error{Path: dir, Problem: Failed, Err: err}
	}
	path := filepath.Join(dir, FileName)
	if err := checkMagic(path); err != nil {
		return nil, err
	}
	if err := createPrivate(path); err != nil {
		return nil, &Error{Path: path, Problem: Failed, Err: err}
	}
	// One connection, which holds the database exclusively: a second
	// toolscope fails at once (busy_timeout 0) instead of interleaving
	// its runs or waiting. The write-ahead log, which changes the file,
	// is turned on by migrate once the database is known to be ours.
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, classify(path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if err := migrate(db); err != nil {
		db.Close()
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
			return nil, e
		}
		return nil, classify(path, err)
	}
	keepPrivate(path)
	file, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	st, err := prepare(db)
	if err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	opts = opts.withDefaults()
	s := &Store{db: db, path: path, file: file, opts: opts, wake: make(chan struct{}, 1), syncs: make(chan chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	go s.write(&writer{live: map[*runs.Run]int{}, stmts: st})
	return s, nil
}

// checkMagic refuses a file that is not an SQLite database before SQLite
// sees it: SQLite may take a short one for an empty database and write
// over it.
func checkMagic(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{Path: path, Problem: Failed, Err: err}
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return nil // an empty file is an empty database
	case err != nil || string(head) != sqliteMagic:
		return &Error{Path: path, Problem: Corrupt, Err: errors.New("the file does not start as an SQLite database does")}
	}
	return nil
}

// createPrivate creates the database file, if there is none, readable by
// its owner alone: it holds every prompt and tool result, and SQLite
// would create it readable by all that the umask allows. SQLite gives
// the write-ahead log it creates the database's mode.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// keepPrivate takes from the database's files, once the database is known
// to be toolscope's, what an older toolscope let others read. A file
// system without modes refuses; the history works all the same.
func keepPrivate(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		fi, err := os.Stat(path + suffix)
		if err != nil || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(path+suffix, fi.Mode().Perm()&^0o077); err != nil {
			slog.Warn("the history database could not be made private to its owner", "file", path+suffix, "error", err)
		}
	}
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Status says whether runs are being kept, and where, or why not.
func (s *Store) Status() runs.History {
	s.checkFile()
	if e := s.failed.Load(); e != nil {
		return runs.History{Path: s.path, Off: e.Error() + "; runs are kept in memory only"}
	}
	return runs.History{On: true, Path: s.path}
}

// Lag is how far behind the live stream the history's last write was:
// the age, when it was committed, of the oldest event it wrote; 0 once
// the writer finds nothing left to write.
func (s *Store) Lag() time.Duration { return time.Duration(s.lag.Load()) }

// Sync returns once what the Store was told so far is committed, or has
// failed to be.
func (s *Store) Sync() {
	done := make(chan struct{})
	select {
	case s.syncs <- done:
		<-done
	case <-s.done:
	}
}

// Close writes what is waiting and closes the database. Call it once the
// Hub has ended its runs.
func (s *Store) Close() error {
	close(s.quit)
	<-s.done
	return s.db.Close()
}

// checkFile turns history off once the database file is not the one
// opened: deleted, or replaced by another. SQLite would go on writing to
// the file it holds open, which nothing can open again: the runs would be
// lost at the next start, while history said it was on.
func (s *Store) checkFile() {
	if s.failed.Load() != nil {
		return
	}
	now, err := os.Stat(s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.fail(&Error{Path: s.path, Problem: Gone, Err: errors.New("was deleted while toolscope was using it")})
	case err != nil:
		s.fail(err)
	case !os.SameFile(now, s.file):
		s.fail(&Error{Path: s.path, Problem: Gone, Err: errors.New("was replaced by another file while toolscope was using it")})
	}
}

// fail turns history off after a write failed, or the file went.
func (s *Store) fail(err error) {
	e := classify(s.path, err)
	if s.failed.CompareAndSwap(nil, e) {
		slog.Warn("history is off: runs are kept in memory only", "error", e)
	}
}
