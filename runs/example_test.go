package runs_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
)

// demoAgent is an agent of the offline demo model with the built-in stub
// tools, both as fast as they go. Its clock is stopped, so that "Friday"
// is always the same day.
func demoAgent() *agent.Agent {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		log.Fatal(err)
	}
	return agent.New(agent.Config{
		Backend: demo.New(demo.Config{TokenDelay: 0}),
		Tools:   registry,
		Now:     func() time.Time { return time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC) },
	})
}

// Start returns at once; the run goes on in the background, whoever
// watches it. Events follows it from the start (after event 0) to its end,
// and the loop ends by itself after run_finished.
func Example() {
	hub := runs.NewHub(10)
	defer hub.Close()

	run, err := hub.Start(runs.Spec{Message: "Send an email to john@example.com about the standup", Agent: demoAgent()})
	if err != nil {
		log.Fatal(err)
	}
	for e := range run.Events(context.Background(), 0) {
		switch e.Type {
		case agent.RunStarted:
			fmt.Println(e.Type, e.Run.Model)
		case agent.ToolStarted:
			fmt.Println(e.Type, e.Call.Name)
		case agent.RunFinished:
			fmt.Println(e.Type, e.Reason)
		}
	}
	fmt.Println(run.Snapshot().Answer)
	// Output:
	// run_started toolscope-demo
	// tool_started send_mail
	// run_finished answered
	// Your email to john@example.com has been sent (message id msg-3f551b).
}

// A viewer that lost its connection resumes after the last event it saw,
// as a browser's EventSource does with its Last-Event-ID header: it gets
// every event from the next one on, none twice and none missed.
func ExampleRun_Events_resume() {
	hub := runs.NewHub(10)
	defer hub.Close()
	run, err := hub.Start(runs.Spec{Message: "Cancel my 3pm meeting", Agent: demoAgent()})
	if err != nil {
		log.Fatal(err)
	}

	lastSeen := 0
	for e := range run.Events(context.Background(), 0) {
		lastSeen = e.Seq
		if e.Type == agent.RoundStarted {
			break // the connection drops here; the run goes on
		}
	}
	fmt.Println("saw up to", lastSeen)

	resumed := 0
	for e := range run.Events(context.Background(), lastSeen) {
		if resumed == 0 {
			fmt.Println("resumed at", e.Seq)
		}
		resumed++
	}
	fmt.Println("every event once:", lastSeen+resumed == run.Recorded())
	// Output:
	// saw up to 2
	// resumed at 3
	// every event once: true
}

// A run that names the conversation of an earlier one continues it: the
// model reads the earlier requests, replies and tool results, and so can
// take "him" from them.
func ExampleHub_Start_followUp() {
	hub := runs.NewHub(10)
	defer hub.Close()
	a := demoAgent()

	first, err := hub.Start(runs.Spec{Message: "Send an email to john@example.com about the standup", Agent: a})
	if err != nil {
		log.Fatal(err)
	}
	for range first.Events(context.Background(), 0) {
		// Wait for the first run to end: a conversation runs one request at a time.
	}
	next, err := hub.Start(runs.Spec{Message: "Schedule a design review with him on Friday at 3pm", ConversationID: first.ConversationID, Agent: a})
	if err != nil {
		log.Fatal(err)
	}
	for e := range next.Events(context.Background(), 0) {
		if e.Type == agent.ToolCallParsed {
			fmt.Println(e.Call.Name, string(e.Call.Arguments))
		}
	}
	fmt.Println(next.ConversationID == first.ConversationID)
	// Output:
	// schedule_meeting {"title":"Design review","attendees":["john@example.com"],"date":"2026-03-13","time":"15:00"}
	// true
}
