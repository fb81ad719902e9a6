package store

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
)

// A run stored before token events carried a region loads with them: each
// byte of the reply in the region the run itself sent it in.
func TestARunStoredWithoutRegionsLoadsWithThem(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	h := runs.NewHub(2)
	h.SetArchive(s)
	r, err := h.Start(runs.Spec{Message: "Send an email to john@example.com about the standup",
		Agent: agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})})
	if err != nil {
		t.Fatal(err)
	}
	sent := slices.Collect(r.Events(context.Background(), 0))
	h.Close()
	s.Sync()
	if want := regionOfEachByte(sent); !strings.Contains(want, "think") || !strings.Contains(want, "call") {
		t.Fatalf("the demo run has no thinking or no call to tint: %s", want)
	}

	stripRegions(t, s, r.ID)
	loaded, err := s.Load(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Collect(loaded.Events(context.Background(), 0))
	if regionOfEachByte(got) != regionOfEachByte(sent) {
		t.Errorf("the reply loaded in regions\n%s\nwant as the run sent it\n%s", regionOfEachByte(got), regionOfEachByte(sent))
	}
}

// stripRegions rewrites a stored run's token events as toolscope wrote
// them before they had regions.
func stripRegions(t *testing.T, s *Store, id string) {
	t.Helper()
	rows, err := s.db.Query(`SELECT first_seq, events FROM chunks WHERE run_id = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	stripped := map[int][]byte{}
	var c chunker
	for rows.Next() {
		var first int
		var chunk []byte
		if err := rows.Scan(&first, &chunk); err != nil {
			t.Fatal(err)
		}
		lines, err := unpack(chunk)
		if err != nil {
			t.Fatal(err)
		}
		var events []runs.Encoded
		for _, line := range lines {
			var e agent.Event
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatal(err)
			}
			if e.Type == agent.Token {
				e.Region = ""
				line, _ = json.Marshal(e)
			}
			events = append(events, runs.Encoded{JSON: line})
		}
		stripped[first] = slices.Clone(c.pack(events))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for first, chunk := range stripped {
		if _, err := s.db.Exec(`UPDATE chunks SET events = ? WHERE run_id = ? AND first_seq = ?`, chunk, id, first); err != nil {
			t.Fatal(err)
		}
	}
}

// regionOfEachByte says, round by round, which region each byte of the
// reply's token events stands in.
func regionOfEachByte(events []agent.Event) string {
	var b strings.Builder
	for _, e := range events {
		switch e.Type {
		case agent.RoundStarted:
			b.WriteString("\nround: ")
		case agent.Token:
			for range len(e.Text) {
				b.WriteString(string(e.Region) + " ")
			}
		}
	}
	return b.String()
}
