package agent_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// tapped streams a scripted's replies and calls after once the agent has
// sent every event of a chunk: where a run recorded before Token events
// had regions sent the chunk as one Token event.
type tapped struct {
	scripted
	thinking bool // the prompt leaves the model inside <think>
	after    func(chunk string)
}

func (b *tapped) Prepare(ctx context.Context, req llm.Request) (llm.Input, error) {
	in, err := b.scripted.Prepare(ctx, req)
	if b.thinking {
		in.Prompt += "<think>\n"
	}
	return in, err
}

func (b *tapped) Stream(_ context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	chunks := b.replies[0]
	b.replies = b.replies[1:]
	for _, c := range chunks {
		if err := fn(llm.Chunk{Content: c}); err != nil {
			return llm.Stats{}, err
		}
		b.after(c)
	}
	return llm.Stats{DoneReason: "stop"}, nil
}

// runBothWays runs the agent on replies, and returns its events and the
// events a run before Token events had regions would have sent: the same,
// with one Token event per chunk, standing where the chunk's last one
// stands, and no Token events for the bytes held to the end.
func runBothWays(t *testing.T, dialect streamparser.Dialect, thinking bool, replies ...[]string) (fresh, old []agent.Event) {
	t.Helper()
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	b := &tapped{scripted: scripted{replies: replies}, thinking: thinking}
	b.after = func(chunk string) {
		old = append(old, agent.Event{Type: agent.Token, Round: fresh[len(fresh)-1].Round, Text: chunk, AtMS: fresh[len(fresh)-1].AtMS})
	}
	a := agent.New(agent.Config{Backend: b, Tools: registry, Dialect: dialect, MaxRounds: len(replies)})
	a.Run(context.Background(), &agent.Conversation{}, "Email john@example.com", func(e agent.Event) {
		fresh = append(fresh, e)
		if e.Type != agent.Token {
			old = append(old, e)
		}
	})
	for i := range old {
		old[i].Seq = i + 1
	}
	return fresh, old
}

func TestWithRegionsReadsOldTokensAsARunDoes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dialect  streamparser.Dialect
		thinking bool
		replies  [][]string
	}{
		{"hermes, tags cut between chunks", streamparser.Hermes, false, [][]string{
			{"<thi", "nk>\nAn email.</th", "ink>\n\nSure <tool", "_call>\n{\"name\": \"send_mail\", \"arguments\": ",
				"{\"to\": \"john@example.com\", \"subject\": \"Hi\", \"body\": \"Hi.\"}}\n</tool_call>"},
			{"Sent to ", "john@example.com. <to"},
		}},
		{"starts in thinking", streamparser.Hermes, true, [][]string{{"Think", "ing.</think>", "\nDone."}}},
		{"pythonic reads the run's tools", streamparser.Pythonic, false, [][]string{
			{"I'll send it. [send", "_mail(to=\"john@example.com\", subject=\"Hi\", body=\"Hi.\")]"},
			{"Sent."},
		}},
		{"a multibyte character cut", streamparser.Hermes, false, [][]string{{"caf\xc3", "\xa9 ", "<tool_call>{\"name\""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh, old := runBothWays(t, tc.dialect, tc.thinking, tc.replies...)
			got := agent.WithRegions(old)
			for i := range fresh {
				fresh[i].AtMS = 0 // held-back bytes are sent a moment before round_finished
			}
			for i := range got {
				got[i].AtMS = 0
			}
			if !reflect.DeepEqual(got, fresh) {
				t.Errorf("old events read with regions:\n%s\nwant those of a run now:\n%s", tokenLines(got), tokenLines(fresh))
			}
		})
	}
}

func tokenLines(events []agent.Event) string {
	var s strings.Builder
	for _, e := range events {
		if e.Type == agent.Token {
			fmt.Fprintf(&s, "\t%d: round %d %s %q pending %q\n", e.Seq, e.Round, e.Region, e.Text, e.Pending)
		}
	}
	return s.String()
}

func TestWithRegionsKeepsGapsInSeq(t *testing.T) {
	_, old := runBothWays(t, streamparser.Hermes, false, []string{"Hi <tool", "_call>{\"name\": \"send_mail\"}</tool_call>"})
	for i := range old {
		old[i].Seq = 2 * (i + 1) // a recording may leave gaps
	}
	got := agent.WithRegions(old)
	for i := 1; i < len(got); i++ {
		if got[i].Seq <= got[i-1].Seq {
			t.Fatalf("event %d has seq %d after %d", i, got[i].Seq, got[i-1].Seq)
		}
	}
	if last, was := got[len(got)-1].Seq, old[len(old)-1].Seq; last != was+len(got)-len(old) {
		t.Errorf("last seq %d, want %d: %d more events than the %d", last, was+len(got)-len(old), len(got)-len(old), len(old))
	}
}

func TestWithRegionsLeavesEventsWithRegions(t *testing.T) {
	fresh, _ := runBothWays(t, streamparser.Hermes, false, []string{"<think>Hm.</think>Hi <tool", "_call>{\"name\": \"send_mail\"}</tool_call>"})
	if got := agent.WithRegions(fresh); &got[0] != &fresh[0] || len(got) != len(fresh) {
		t.Error("WithRegions copied events whose Token events have regions")
	}
	if allocs := testing.AllocsPerRun(10, func() { agent.WithRegions(fresh) }); allocs != 0 {
		t.Errorf("WithRegions allocates %v times for events with regions", allocs)
	}
}

func TestWithRegionsLeavesAnUnknownDialect(t *testing.T) {
	_, old := runBothWays(t, streamparser.Hermes, false, []string{"Hi."})
	old[0].Run.Dialect = "klingon"
	if got := agent.WithRegions(old); !slices.Equal(tokenTexts(got), tokenTexts(old)) || len(got) != len(old) {
		t.Errorf("events of an unknown dialect changed: %q", tokenTexts(got))
	}
}

func tokenTexts(events []agent.Event) []string {
	var texts []string
	for _, e := range events {
		if e.Type == agent.Token {
			texts = append(texts, string(e.Region)+":"+e.Text)
		}
	}
	return texts
}
