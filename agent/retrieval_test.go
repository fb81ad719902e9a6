package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// topK offers the k stub tools that rank best lexically, as the engine
// does with its own index.
type topK struct {
	index *retrieve.Index
	k     int
}

func (s topK) Select(ctx context.Context, query string, keep []string) *agent.Selection {
	return &agent.Selection{Selection: s.index.Select(ctx, retrieve.Lexical, query, s.k, keep)}
}

// TestFollowUpKeepsCalledTools: a follow-up about something else is
// offered the tool it ranks best and, kept, the tool called before.
func TestFollowUpKeepsCalledTools(t *testing.T) {
	x := retrieve.New(retrieve.Options{})
	x.Replace(tools.Stubs(0))
	f := newFixture(t, llm.ModeRaw, nil, func(c *agent.Config) { c.Selector = topK{x, 1} })
	f.server.Reply(
		ollamatest.Reply{Text: sendMailCall("a@co.com")},
		ollamatest.Reply{Text: "Sent."},
		ollamatest.Reply{Text: "Cancelled."},
	)
	conv := &agent.Conversation{}
	_, first := f.run(context.Background(), conv, "Send an email to a@co.com")
	_, second := f.run(context.Background(), conv, "Cancel the meeting with Ann")

	if first[1].Type != agent.ToolsSelected || second[1].Type != agent.ToolsSelected {
		t.Fatalf("tools_selected must follow run_started: %s, %s", first[1].Type, second[1].Type)
	}
	if got := first[0].Run.Tools; len(got) != 1 || got[0] != "send_mail" {
		t.Errorf("first run offers %v, want [send_mail]", got)
	}
	sel := second[1].Selection
	if names := sel.Names(); len(names) != 2 || names[0] != "cancel_meeting" || names[1] != "send_mail" {
		t.Fatalf("follow-up offers %v, want [cancel_meeting send_mail]", names)
	}
	if sel.Tools[0].Kept || !sel.Tools[1].Kept {
		t.Errorf("only send_mail is kept: %+v", sel.Tools)
	}
	if sel.LeftOut != len(tools.Stubs(0))-2 {
		t.Errorf("left_out = %d", sel.LeftOut)
	}
	prompts := f.server.Requests()
	system := func(i int) string { s, _, _ := strings.Cut(prompts[i].Prompt, "<|im_start|>user"); return s }
	if s := system(0); !strings.Contains(s, `"send_mail"`) || strings.Contains(s, `"cancel_meeting"`) {
		t.Errorf("first system prompt must describe send_mail alone:\n%s", s)
	}
	if s := system(2); !strings.Contains(s, `"send_mail"`) || !strings.Contains(s, `"cancel_meeting"`) || strings.Contains(s, `"schedule_meeting"`) {
		t.Errorf("follow-up system prompt must describe cancel_meeting and send_mail alone:\n%s", s)
	}
}

// TestNoSelectionOffersEveryTool: a Selector that declines (too few
// tools) leaves the run as it was, with no tools_selected event.
func TestNoSelectionOffersEveryTool(t *testing.T) {
	f := newFixture(t, llm.ModeRaw, nil, func(c *agent.Config) { c.Selector = declining{} })
	f.server.Reply(ollamatest.Reply{Text: "Hi."})
	_, events := f.run(context.Background(), &agent.Conversation{}, "hello")
	if len(ofType(events, agent.ToolsSelected)) != 0 || len(events[0].Run.Tools) != len(tools.Stubs(0)) {
		t.Fatalf("every tool must be offered, without tools_selected: %v", events[0].Run.Tools)
	}
}

type declining struct{}

func (declining) Select(context.Context, string, []string) *agent.Selection { return nil }
