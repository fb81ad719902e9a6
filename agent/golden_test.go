package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

var update = flag.Bool("update", false, "rewrite testdata/events.golden from this run")

// scripted is a backend that streams fixed replies, in fixed chunks, with
// fixed counters, or fails to prepare with fail.
type scripted struct {
	replies [][]string
	fail    error
}

func (s *scripted) Info() llm.Info {
	return llm.Info{Backend: "scripted", Model: "test-model", Mode: llm.ModeRaw}
}

func (s *scripted) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	if s.fail != nil {
		return llm.Input{}, s.fail
	}
	return llm.Input{Mode: llm.ModeRaw, Messages: req.Messages, Prompt: fmt.Sprintf("(the prompt of %d messages)", len(req.Messages))}, nil
}

func (s *scripted) Stream(_ context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	chunks := s.replies[0]
	s.replies = s.replies[1:]
	for _, c := range chunks {
		if err := fn(llm.Chunk{Content: c}); err != nil {
			return llm.Stats{}, err
		}
	}
	return llm.Stats{DoneReason: "stop", PromptTokens: 120, OutputTokens: 30, LoadDuration: 2 * time.Millisecond,
		PromptDuration: 1500 * time.Microsecond, EvalDuration: 400 * time.Millisecond, TotalDuration: 410 * time.Millisecond}, nil
}

// TestEventsGolden locks the event JSON that the README calls a stable
// interface: a run with one tool call and an answer, then a run whose
// backend fails with a fix. Times measured by the clock are zeroed, and the
// system prompt, which TestSystemPrompt checks, is replaced by a marker.
// Run with -update to accept a deliberate change.
func TestEventsGolden(t *testing.T) {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	answering := &scripted{replies: [][]string{
		{"<think>\nThe user wants an email.\n</think>\n\n<tool", "_call>\n{\"name\": \"send_mail\", ",
			"\"arguments\": {\"to\": \"john@example.com\", \"subject\": \"Standup\", \"body\": \"See you at 9.\"}}\n</tool_call>"},
		{"Sent to ", "john@example.com."},
	}}
	failing := &scripted{fail: &llm.Error{Op: "prepare", Problem: `model "test-model" is not pulled`,
		Fix: &llm.Fix{Do: "run 'ollama pull test-model'", Setting: llm.SettingModel}}}

	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetEscapeHTML(false) // as toolscope run --json writes them
	for _, b := range []llm.Backend{answering, failing} {
		a := agent.New(agent.Config{Backend: b, Tools: registry, Now: func() time.Time { return now }})
		a.Run(context.Background(), &agent.Conversation{}, "Email john@example.com about the standup", func(e agent.Event) {
			if err := enc.Encode(stable(e)); err != nil {
				t.Fatal(err)
			}
		})
	}

	path := filepath.Join("testdata", "events.golden")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := line(gotLines, i), line(wantLines, i)
		if g != w {
			t.Fatalf("event JSON line %d changed; if on purpose, run go test ./agent -run TestEventsGolden -update and tell the docs\n got: %s\nwant: %s", i+1, g, w)
		}
	}
}

// stable zeroes what the clock decides and marks the system prompt.
func stable(e agent.Event) agent.Event {
	e.AtMS, e.DurationMS = 0, 0
	if e.Stats != nil {
		s := *e.Stats
		s.FirstTokenMS = 0
		e.Stats = &s
	}
	if e.Input != nil {
		in := *e.Input
		in.Messages = slices.Clone(in.Messages)
		if len(in.Messages) > 0 && in.Messages[0].Role == llm.RoleSystem {
			in.Messages[0].Content = "(the system prompt)"
		}
		e.Input = &in
	}
	return e
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}
