package store

import (
	"crypto/rand"
	"fmt"
	"os"
	"testing"
	"time"
)

func TestZZMeasureQuickCheck(t *testing.T) {
	dir := os.Getenv("QC_DIR")
	mb := 0
	fmt.Sscan(os.Getenv("QC_MB"), &mb)
	if dir == "" {
		t.Skip()
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 4096)
	var have int
	s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&have)
	rows := mb * 256
	for i := have; i < rows; {
		tx, _ := s.db.Begin()
		for j := 0; j < 2560 && i < rows; j, i = j+1, i+1 {
			rand.Read(blob)
			if _, err := tx.Exec(insertChunk, fmt.Sprintf("r-%06d", i/100), i%100+1, blob); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	fi, _ := os.Stat(dir + "/history.db")
	for k := 0; k < 3; k++ {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"PRAGMA quick_check(1)", "PRAGMA integrity_check(1)"} {
			start := time.Now()
			var res string
			if err := s.db.QueryRow(q).Scan(&res); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d MB: %s = %s in %v", fi.Size()>>20, q, res, time.Since(start))
		}
		s.Close()
	}
}
