package store_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/store"
)

// A database file deleted, or replaced by another, while the server runs
// turns the history off and says why: runs written on would be lost at the
// next start, with the history said to be on.
func TestADatabaseThatGoesTurnsTheHistoryOff(t *testing.T) {
	for name, c := range map[string]struct {
		remove func(t *testing.T, path string)
		says   string
	}{
		"deleted": {func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "was deleted while toolscope was using it"},
		"replaced": {func(t *testing.T, path string) {
			other := filepath.Join(t.TempDir(), "copy.db")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, "was replaced by another file"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, store.Options{})
			defer s.Close()
			runAll(t, s, request)
			c.remove(t, s.Path())

			st := s.Status()
			if st.On || !strings.Contains(st.Off, c.says) || !strings.Contains(st.Off, "in memory only") || st.Path != s.Path() {
				t.Fatalf("Status = %+v; want the history off because the file was %s", st, name)
			}
			// Runs go on, in memory.
			if played := runAll(t, s, request); len(played) != 1 {
				t.Fatalf("a run after the file went: %v", played)
			}
		})
	}
}

// A database damaged in its middle, past the pages that opening it reads,
// is refused at Open and left as it is: its runs would otherwise answer
// as if they had never existed.
func TestADatabaseDamagedInTheMiddleIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, store.Options{})
	runAll(t, s, slices.Repeat([]string{request}, 24)...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, store.FileName)
	page, size := middleLeafOfChunks(t, path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xff}, size), int64(page-1)*int64(size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	damaged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	_, err = store.Open(dir, store.Options{})
	var e *store.Error
	if !errors.As(err, &e) || e.Problem != store.Corrupt || !strings.Contains(err.Error(), "is damaged") || !strings.Contains(err.Error(), "quick_check") {
		t.Fatalf("Open: %v; want a Corrupt *store.Error that says where SQLite found the damage", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, damaged) {
		t.Fatal("the damaged file was changed")
	}
}

// middleLeafOfChunks returns the middle one of the pages that hold the
// chunks table's rows, and the database's page size.
func middleLeafOfChunks(t *testing.T, path string) (page, size int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = 'chunks' AND pagetype = 'leaf' ORDER BY pageno`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var leaves []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, n)
	}
	if len(leaves) < 3 {
		t.Fatalf("the chunks table has %d leaf pages; want 3 or more to damage one in the middle", len(leaves))
	}
	return leaves[len(leaves)/2], size
}
