//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolscope/toolscope/store"
)

// The history holds every prompt and tool result: in a shared folder, no
// other user may read it, whatever the umask lets files be.
func TestTheHistoryIsPrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := filepath.Join(t.TempDir(), "shared", "toolscope")
	s := open(t, dir, store.Options{})
	defer s.Close()
	runAll(t, s, request)

	mustHaveMode(t, dir, 0o700|os.ModeDir)
	files := databaseFiles(t, dir)
	if len(files) < 2 {
		t.Fatalf("files of the open database: %v; want the database and its write-ahead log", files)
	}
	for _, f := range files {
		mustHaveMode(t, f, 0o600)
	}
}

// A history that an older toolscope left readable by all is made private
// when it is opened.
func TestAnOpenHistoryIsMadePrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	runAll(t, s, request)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, store.FileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir, store.Options{})
	defer s.Close()
	runAll(t, s, request)
	for _, f := range databaseFiles(t, dir) {
		mustHaveMode(t, f, 0o600)
	}
}

// databaseFiles lists the database's files in dir: history.db and its
// -wal, -shm or -journal.
func databaseFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), store.FileName) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files
}

func mustHaveMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode(); got != want {
		t.Errorf("%s has mode %v, want %v", filepath.Base(path), got, want)
	}
}
