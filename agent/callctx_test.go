package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/tools"
)

type callKey struct{}

// A run under WithCallContext runs each tool under the context its
// function derives, right after the call's ToolStarted event: what a
// tracer needs to hand a call's span to the tool.
func TestToolsRunUnderTheCallContext(t *testing.T) {
	var events []agent.Event
	derived := 0
	ctx := agent.WithCallContext(t.Context(), func(ctx context.Context) context.Context {
		if last := events[len(events)-1]; last.Type != agent.ToolStarted {
			t.Errorf("the call's context was derived after %s, not right after tool_started", last.Type)
		}
		derived++
		return context.WithValue(ctx, callKey{}, derived)
	})
	var seen any
	probe := tools.Func(tools.SendMail, "Send an email.", json.RawMessage(`{"type": "object"}`),
		func(ctx context.Context, _ map[string]any) (string, error) {
			seen = ctx.Value(callKey{})
			return "sent", nil
		})
	registry, err := tools.NewRegistry(probe)
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})
	a.Run(ctx, &agent.Conversation{}, "Send an email to john@example.com about tomorrow's standup", func(e agent.Event) { events = append(events, e) })
	if derived != 1 || seen != 1 {
		t.Errorf("the context was derived %d times, and the tool saw %v; want once, and 1", derived, seen)
	}
}
