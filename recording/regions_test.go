package recording_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/recording"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// chunks streams each round's reply in the chunks given.
type chunks struct{ rounds [][]string }

func (c *chunks) Info() llm.Info { return llm.Info{Backend: "scripted", Model: "m", Mode: llm.ModeRaw} }

func (c *chunks) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	return llm.Input{Mode: llm.ModeRaw, Messages: req.Messages, Prompt: "(the prompt)"}, nil
}

func (c *chunks) Stream(_ context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	round := c.rounds[0]
	c.rounds = c.rounds[1:]
	for _, chunk := range round {
		if err := fn(llm.Chunk{Content: chunk}); err != nil {
			return llm.Stats{}, err
		}
	}
	return llm.Stats{DoneReason: "stop"}, nil
}

// TestOlderRecordingReadsWithRegions: toolscope 0.1.0 sent one token event
// per chunk, with no region. Read back, they are split by region as a run
// of today sends the same chunks, and stand where its events do among the
// parser's.
func TestOlderRecordingReadsWithRegions(t *testing.T) {
	f, err := os.Open("testdata/recording-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, events, err := recording.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	backend := &chunks{rounds: recordedChunks(t, "testdata/recording-v1.jsonl")}
	var fresh []agent.Event
	a := agent.New(agent.Config{Backend: backend, Tools: registry, Dialect: streamparser.Hermes, MaxRounds: len(backend.rounds)})
	a.Run(context.Background(), &agent.Conversation{}, "Send an email to john@example.com about the standup", func(e agent.Event) {
		fresh = append(fresh, e)
	})
	if got, want := streamed(events), streamed(fresh); !slices.Equal(got, want) {
		t.Errorf("the recording's reply events read back:\n%s\nwant a run's of the same chunks:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(events); i++ {
		if events[i].Seq != events[i-1].Seq+1 {
			t.Fatalf("event %d has seq %d after %d", i, events[i].Seq, events[i-1].Seq)
		}
	}
}

// recordedChunks reads a recording's token events as the file holds them:
// each round's chunks.
func recordedChunks(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rounds [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e agent.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Type == agent.RoundStarted:
			rounds = append(rounds, nil)
		case e.Type == agent.Token && e.Region == "":
			rounds[len(rounds)-1] = append(rounds[len(rounds)-1], e.Text)
		case e.Type == agent.Token:
			t.Fatalf("the recording has a token event with a region: %s", sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rounds
}

// streamed lists the events a reply streams, tokens and what the parser
// made of them, in order.
func streamed(events []agent.Event) []string {
	var lines []string
	for _, e := range events {
		switch e.Type {
		case agent.Token, agent.TextDelta, agent.ThinkingDelta, agent.ToolCallDelta:
			lines = append(lines, fmt.Sprintf("%d %s %s %q pending %q", e.Round, e.Type, e.Region, e.Text, e.Pending))
		}
	}
	return lines
}
