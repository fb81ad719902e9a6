package agent_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/tools"
)

// An agent needs a backend and tools. Here the backend is the offline demo
// model, streaming as fast as it is read, and the tools are the built-in
// stubs, which answer at once. The run reports every step as an Event; this
// one prints the steps a person would look at, leaving out the streamed
// characters (Token and the deltas).
func Example() {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		log.Fatal(err)
	}
	a := agent.New(agent.Config{
		Backend: demo.New(demo.Config{TokenDelay: 0}),
		Tools:   registry,
		// A fixed clock, so that "tomorrow" is always the same day.
		Now: func() time.Time { return time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC) },
	})

	var conv agent.Conversation
	res := a.Run(context.Background(), &conv, "Send an email to john@example.com about tomorrow's standup", func(e agent.Event) {
		switch e.Type {
		case agent.ToolCallParsed:
			fmt.Println(e.Type, e.Call.Name, string(e.Call.Arguments))
		case agent.ToolFinished:
			fmt.Println(e.Type, e.Call.Name, e.Result)
		case agent.RunStarted, agent.RoundStarted, agent.ToolStarted, agent.RoundFinished:
			fmt.Println(e.Type)
		}
	})
	fmt.Println(res.Reason, "after", res.Rounds, "rounds:", res.Text)
	// Output:
	// run_started
	// round_started
	// tool_call_parsed send_mail {"to":"john@example.com","subject":"Standup","body":"Hi John,\n\nA quick note about the standup on Friday, March 13. Let me know if you have any questions.\n\nBest regards"}
	// round_finished
	// tool_started
	// tool_finished send_mail {"status":"sent","message_id":"msg-25ed4c","to":"john@example.com","subject":"Standup"}
	// round_started
	// round_finished
	// answered after 2 rounds: Your email to john@example.com has been sent (message id msg-25ed4c).
}

// With ReturnCalls the caller runs the tools, as an OpenAI API client
// does: the run ends with the model's valid calls in Result.Calls, and the
// tools in the registry only describe them to the model.
func ExampleConfig_returnCalls() {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		log.Fatal(err)
	}
	a := agent.New(agent.Config{
		Backend:     demo.New(demo.Config{TokenDelay: 0}),
		Tools:       registry,
		ReturnCalls: true,
		Now:         func() time.Time { return time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC) },
	})

	res := a.Run(context.Background(), &agent.Conversation{}, "Send an email to john@example.com about tomorrow's standup", func(agent.Event) {})
	fmt.Println(res.Reason)
	for _, call := range res.Calls {
		fmt.Println(call.Name, string(call.Arguments))
	}
	// Output:
	// tool_calls
	// send_mail {"to":"john@example.com","subject":"Standup","body":"Hi John,\n\nA quick note about the standup on Friday, March 13. Let me know if you have any questions.\n\nBest regards"}
}
