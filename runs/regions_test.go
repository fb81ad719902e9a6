package runs

import (
	"context"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/agent"
)

// A stored run whose token events have regions is restored as it was
// kept: its events are not decoded, let alone encoded anew.
func TestRestoreKeepsEventsWithRegions(t *testing.T) {
	h := NewHub(1)
	defer h.Close()
	r, err := h.Start(Spec{Message: request, Agent: newAgent(t)})
	if err != nil {
		t.Fatal(err)
	}
	events := slices.Collect(r.Events(context.Background(), 0))
	if !slices.ContainsFunc(events, func(e agent.Event) bool { return e.Type == agent.Token && e.Region != "" }) {
		t.Fatal("the run has no token events with regions")
	}
	kept := r.Log()
	restored := Restore(Stored{Summary: r.Summary(), Events: kept})
	if got := restored.Log(); len(got) != len(kept) || &got[0] != &kept[0] {
		t.Error("Restore copied events whose token events have regions")
	}
}

// A stored run whose token events lack regions is restored with them,
// encoded anew, its Seq counting on.
func TestRestoreGivesOldTokensTheirRegions(t *testing.T) {
	old := []agent.Event{
		{Seq: 1, Type: agent.RunStarted, Run: &agent.RunInfo{Dialect: "hermes"}},
		{Seq: 2, Type: agent.RoundStarted, Round: 1},
		{Seq: 3, Type: agent.TextDelta, Round: 1, Text: "Hi "},
		{Seq: 4, Type: agent.Token, Round: 1, Text: "Hi <tool_call>{", Pending: ""},
		{Seq: 5, Type: agent.RoundFinished, Round: 1},
		{Seq: 6, Type: agent.RunFinished},
	}
	var kept []Encoded
	for _, e := range old {
		kept = append(kept, encode(e))
	}
	var got []string
	for _, enc := range Restore(Stored{Events: kept}).Log() {
		e := enc.Event()
		if e.Seq != enc.Seq || e.Seq != len(got)+1 {
			t.Fatalf("event %d has seq %d (encoded as %d)", len(got)+1, enc.Seq, e.Seq)
		}
		got = append(got, string(e.Type)+" "+string(e.Region)+" "+e.Text)
	}
	want := []string{"run_started  ", "round_started  ", "text_delta  Hi ", "token text Hi ", "token call <tool_call>{",
		"round_finished  ", "run_finished  "}
	if !slices.Equal(got, want) {
		t.Errorf("restored %q\nwant %q", got, want)
	}
}
