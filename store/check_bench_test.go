package store

import (
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// BenchmarkQuickCheck measures what Open's integrity check costs on a
// large history: $QUICK_CHECK_MB megabytes (100 unless set) of 4 KB
// chunks, which do not compress, a hundred to a run. ms/MB is the figure
// docs/teaching.md quotes.
func BenchmarkQuickCheck(b *testing.B) {
	mb, err := strconv.Atoi(os.Getenv("QUICK_CHECK_MB"))
	if err != nil {
		mb = 100
	}
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fill(b, s, mb*256)
	fi, err := os.Stat(s.Path())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := checkIntegrity(s.db); err != nil {
			b.Fatal(err)
		}
	}
	size := float64(fi.Size()) / (1 << 20)
	b.ReportMetric(size, "MB")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/size, "ms/MB")
}

// fill writes n chunks of 4 KB, in transactions of 2,560 (10 MB).
func fill(b *testing.B, s *Store, n int) {
	chunk := make([]byte, 4096)
	for i := 0; i < n; {
		tx, err := s.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		for end := min(i+2560, n); i < end; i++ {
			_, _ = rand.Read(chunk)
			if _, err := tx.Exec(insertChunk, fmt.Sprintf("r-%08d", i/100), i%100+1, chunk); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
