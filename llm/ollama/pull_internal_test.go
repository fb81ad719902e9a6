package ollama

import (
	"testing"
	"time"
)

// The speed is that of the last few seconds, not the average since the
// start: after a fast start and a slow spell, it says slow.
func TestSpeedFollowsTheLastSeconds(t *testing.T) {
	var m meter
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(seconds float64) time.Time { return start.Add(time.Duration(seconds * float64(time.Second))) }
	if got := m.add(at(0), 0); got != 0 {
		t.Errorf("speed from one sample = %v, want 0 (unknown)", got)
	}
	if got := m.add(at(0.5), 500); got != 0 {
		t.Errorf("speed over half a second = %v, want 0 (too little to tell)", got)
	}
	if got := m.add(at(1), 1000); got != 1000 {
		t.Errorf("speed after a second at 1000 B/s = %v", got)
	}
	bytes := int64(1000)
	for s := 2; s <= 5; s++ {
		bytes += 1000
		m.add(at(float64(s)), bytes)
	}
	var got float64
	for s := 6; s <= 15; s++ {
		bytes += 100
		got = m.add(at(float64(s)), bytes)
	}
	if got != 100 {
		t.Errorf("speed after ten seconds at 100 B/s = %v, want 100 (the average since the start is %v)", got, float64(bytes)/15)
	}
	if len(m.samples) > 6 {
		t.Errorf("the meter keeps %d samples, want only the window's", len(m.samples))
	}
}

func TestProgressString(t *testing.T) {
	for _, c := range []struct {
		p    Progress
		want string
	}{
		{Progress{Status: "pulling manifest"}, "pulling manifest"},
		{Progress{Status: "pulling 3e4cb1417446", Completed: 1_100_000_000, Total: 2_500_000_000}, "1.1 GB of 2.5 GB"},
		{Progress{Status: "pulling 3e4cb1417446", Completed: 1_100_000_000, Total: 2_500_000_000, Speed: 12_300_000, Left: 113*time.Second + 800*time.Millisecond},
			"1.1 GB of 2.5 GB, 12 MB/s, 1m54s left"},
		{Progress{Status: "pulling 3e4cb1417446", Completed: 1_000_000, Total: 2_500_000_000, Speed: 300_000, Left: 2*time.Hour + 18*time.Minute + 40*time.Second},
			"1 MB of 2.5 GB, 300 KB/s, 2h19m left"},
		{Progress{Status: "pulling 3e4cb1417446", Completed: 2_490_000_000, Total: 2_500_000_000, Speed: 30_000_000, Left: 333 * time.Millisecond},
			"2.5 GB of 2.5 GB, 30 MB/s, 1s left"},
		{Progress{Status: "verifying sha256 digest", Completed: 2_500_000_000, Total: 2_500_000_000}, "2.5 GB of 2.5 GB"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.p, got, c.want)
		}
	}
}
