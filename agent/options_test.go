package agent_test

import (
	"context"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
)

// optionsSeen is a backend that answers at once and keeps the options of
// every request it prepares.
type optionsSeen struct {
	scripted
	seen []*llm.Sampling
}

func (o *optionsSeen) Prepare(ctx context.Context, req llm.Request) (llm.Input, error) {
	o.seen = append(o.seen, req.Options)
	return o.scripted.Prepare(ctx, req)
}

func TestOptionsReachEveryRound(t *testing.T) {
	temp := 0.2
	options := &llm.Sampling{Temperature: &temp, Stop: []string{"x"}}
	b := &optionsSeen{scripted: scripted{replies: [][]string{
		{"<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"a@b.c\", \"subject\": \"s\", \"body\": \"b\"}}\n</tool_call>"},
		{"Sent."},
	}}}
	a := agent.New(agent.Config{Backend: b, Options: options})
	res := a.Run(context.Background(), &agent.Conversation{}, "Mail a@b.c", func(agent.Event) {})
	if res.Rounds != 2 || len(b.seen) != 2 {
		t.Fatalf("%d rounds, %d prepared: want 2 of each", res.Rounds, len(b.seen))
	}
	for i, got := range b.seen {
		if got != options {
			t.Errorf("round %d prepared with options %+v, want the Config's", i+1, got)
		}
	}
}
