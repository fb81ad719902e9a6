package transcript_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/tools"
)

// now is the runs' clock, so that the prompts they write compare equal.
var now = time.Date(2026, 11, 29, 21, 49, 0, 0, time.UTC)

// fixture is an agent on an in-process Ollama whose replies a test scripts.
type fixture struct {
	server *ollamatest.Server
	agent  *agent.Agent
}

func newFixture(t *testing.T, mode llm.Mode, extra []tools.Tool) *fixture {
	t.Helper()
	server := ollamatest.New(t)
	backend, err := ollama.New(ollama.Config{Host: server.Host(), Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	registry, err := tools.NewRegistry(append(tools.Stubs(0), extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{server: server, agent: agent.New(agent.Config{Backend: backend, Tools: registry, Now: func() time.Time { return now }})}
}

// run runs one request and returns its events.
func (f *fixture) run(ctx context.Context, message string) []agent.Event {
	var events []agent.Event
	f.agent.Run(ctx, &agent.Conversation{}, message, func(e agent.Event) { events = append(events, e) })
	return events
}

func sendMailCall(to string) string {
	return "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"" + to + "\", \"subject\": \"Standup\", \"body\": \"See you at 9.\"}}\n</tool_call>"
}

// blocking is a tool that waits until its context ends.
func blocking(name string, started chan<- struct{}) tools.Tool {
	return tools.Func(name, "Waits.", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		})
}
