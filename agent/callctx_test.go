package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/tools"
)

type callKey struct{}

// probeRegistry offers send_mail, which puts the context's callKey
// value, at the time it runs, in seen.
func probeRegistry(t *testing.T, seen *any) *tools.Registry {
	t.Helper()
	probe := tools.Func(tools.SendMail, "Send an email.", json.RawMessage(`{"type": "object"}`),
		func(ctx context.Context, _ map[string]any) (string, error) {
			*seen = ctx.Value(callKey{})
			return "sent", nil
		})
	registry, err := tools.NewRegistry(probe)
	if err != nil {
		t.Fatal(err)
	}
	return registry
}

const sendMail = "Send an email to john@example.com about tomorrow's standup"

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
	a := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: probeRegistry(t, &seen)})
	a.Run(ctx, &agent.Conversation{}, sendMail, func(e agent.Event) { events = append(events, e) })
	if derived != 1 || seen != 1 {
		t.Errorf("the context was derived %d times, and the tool saw %v; want once, and 1", derived, seen)
	}
}

// A second WithCallContext, a second observer's, derives from what the
// first derived: the tool runs under both, the later over the earlier.
func TestCallContextsChain(t *testing.T) {
	ctx := agent.WithCallContext(t.Context(), func(ctx context.Context) context.Context {
		return context.WithValue(ctx, callKey{}, []string{"first"})
	})
	ctx = agent.WithCallContext(ctx, func(ctx context.Context) context.Context {
		before, _ := ctx.Value(callKey{}).([]string)
		return context.WithValue(ctx, callKey{}, append(before, "second"))
	})
	var seen any
	a := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: probeRegistry(t, &seen)})
	a.Run(ctx, &agent.Conversation{}, sendMail, func(agent.Event) {})
	if got, _ := seen.([]string); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("the tool ran under %v, want both derivations, [first second]", seen)
	}
}
