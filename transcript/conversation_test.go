package transcript_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/transcript"
)

// Conversation must rebuild, from the events alone, the conversation
// a run left: what it rebuilds for a run read back from the history is
// what a follow-up reads, so anything it gets wrong the model reads wrong.
// Each case runs for real and compares with the conversation Run kept,
// after the events went through JSON as the history keeps them.
func TestConversationRebuildsTheConversation(t *testing.T) {
	demoAgent := func(d streamparser.Dialect, rounds int) *agent.Agent {
		registry, err := tools.NewRegistry(tools.Stubs(0)...)
		if err != nil {
			t.Fatal(err)
		}
		return agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry, Dialect: d, MaxRounds: rounds, Now: func() time.Time { return now }})
	}
	check := func(t *testing.T, a *agent.Agent, ctx context.Context, conv *agent.Conversation, message string, onEvent func(agent.Event)) {
		t.Helper()
		var events []agent.Event
		a.Run(ctx, conv, message, func(e agent.Event) {
			events = append(events, e)
			if onEvent != nil {
				onEvent(e)
			}
		})
		got, err := transcript.Conversation(throughJSON(t, events))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Messages, conv.Messages) {
			t.Errorf("rebuilt conversation:\n%+v\nthe run's:\n%+v", got.Messages, conv.Messages)
		}
	}
	const email = "Send an email to john@example.com about tomorrow's standup"
	for _, d := range streamparser.Dialects() {
		t.Run("answered in "+d.String(), func(t *testing.T) {
			conv := &agent.Conversation{}
			check(t, demoAgent(d, 8), context.Background(), conv, email, nil)
			check(t, demoAgent(d, 8), context.Background(), conv, "hello", nil) // a follow-up
		})
	}
	t.Run("round limit", func(t *testing.T) {
		check(t, demoAgent(streamparser.Hermes, 1), context.Background(), &agent.Conversation{}, email, nil)
	})
	t.Run("stopped while the model writes", func(t *testing.T) {
		f := newFixture(t, llm.ModeRaw, nil)
		f.server.Reply(ollamatest.Reply{Text: "<think>\nThe user wants mail.\n</think>\n\nI am writing", Hold: true})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		check(t, f.agent, ctx, &agent.Conversation{}, email, func(e agent.Event) {
			if e.Type == agent.TextDelta {
				cancel()
			}
		})
	})
	// A call cut short is told to the model as stopped or not run, never
	// as a parser's complaint: the rebuilt conversation must say the same.
	t.Run("stopped inside a call", func(t *testing.T) {
		f := newFixture(t, llm.ModeRaw, nil)
		f.server.Reply(ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"a@", Hold: true})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		check(t, f.agent, ctx, &agent.Conversation{}, email, func(e agent.Event) {
			if e.Type == agent.Token && strings.Contains(e.Text, "@") {
				cancel()
			}
		})
	})
	t.Run("cut off inside a call", func(t *testing.T) {
		f := newFixture(t, llm.ModeRaw, nil)
		f.server.Reply(ollamatest.Reply{Text: sendMailCall("a@co.com")[:40], DoneReason: llm.DoneLength})
		check(t, f.agent, context.Background(), &agent.Conversation{}, email, nil)
	})
	t.Run("stopped while a tool runs", func(t *testing.T) {
		started := make(chan struct{})
		f := newFixture(t, llm.ModeRaw, []tools.Tool{blocking("slow", started)})
		f.server.Reply(ollamatest.Reply{Text: `<tool_call>{"name": "slow"}</tool_call>`})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-started
			cancel()
		}()
		check(t, f.agent, ctx, &agent.Conversation{}, "wait", nil)
	})
	t.Run("calls parsed by Ollama", func(t *testing.T) {
		f := newFixture(t, llm.ModeChat, nil)
		f.server.Reply(
			ollamatest.Reply{Thinking: "Mail it.", ToolCalls: []llm.ToolCall{{Name: "send_mail", Arguments: json.RawMessage(`{"to":"john@example.com","subject":"Standup","body":"9:00"}`)}}},
			ollamatest.Reply{Text: "Sent."},
		)
		check(t, f.agent, context.Background(), &agent.Conversation{}, email, nil)
	})
}

func TestConversationRefusesARunInProgress(t *testing.T) {
	if _, err := transcript.Conversation([]agent.Event{{Type: agent.RunStarted, Run: &agent.RunInfo{}}}); err == nil {
		t.Fatal("a run with no run_finished was rebuilt")
	}
}

// throughJSON encodes and decodes events, as the history keeps them.
func throughJSON(t *testing.T, events []agent.Event) []agent.Event {
	t.Helper()
	b, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	var out []agent.Event
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
