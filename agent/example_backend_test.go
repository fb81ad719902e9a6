package agent_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

// scriptedModel is an llm.Backend for tests: it plays its replies in turn,
// one per model call, 7 bytes at a time as a model streams them (a chunk may
// end inside a tag or a character: the agent's parser waits for the rest).
// It serves one run at a time.
type scriptedModel struct {
	replies []string
	next    int
}

func (s *scriptedModel) Info() llm.Info {
	return llm.Info{Backend: "scripted", Model: "script", Mode: llm.ModeChat}
}

func (s *scriptedModel) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	return llm.Input{Mode: llm.ModeChat, Messages: req.Messages}, nil
}

func (s *scriptedModel) Stream(ctx context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	if s.next == len(s.replies) {
		return llm.Stats{}, errors.New("the script has no more replies")
	}
	reply := s.replies[s.next]
	s.next++
	for chunk := range slices.Chunk([]byte(reply), 7) {
		if err := ctx.Err(); err != nil {
			return llm.Stats{}, err
		}
		if err := fn(llm.Chunk{Content: string(chunk)}); err != nil {
			return llm.Stats{}, err
		}
	}
	return llm.Stats{DoneReason: "stop"}, nil
}

// A tool failure does not end a run: the error goes back to the model,
// which can put it right. Here a scripted backend plays a model that first
// gets an argument wrong, and prints the calls, what they returned and how
// the run ended.
func ExampleAgent_Run() {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		log.Fatal(err)
	}
	model := &scriptedModel{replies: []string{
		`<tool_call>{"name": "send_mail", "arguments": {"to": "john", "subject": "Hi", "body": "Hello"}}</tool_call>`,
		`<tool_call>{"name": "send_mail", "arguments": {"to": "john@example.com", "subject": "Hi", "body": "Hello"}}</tool_call>`,
		"Sent.",
	}}
	a := agent.New(agent.Config{Backend: model, Tools: registry})

	res := a.Run(context.Background(), &agent.Conversation{}, "Say hello to John", func(e agent.Event) {
		switch e.Type {
		case agent.ToolCallParsed:
			fmt.Println(e.Round, "call:", string(e.Call.Arguments))
		case agent.ToolFinished:
			if e.Error != "" {
				fmt.Println(e.Round, "error:", e.Error)
			} else {
				fmt.Println(e.Round, "result:", e.Result)
			}
		}
	})
	fmt.Println(res.Reason, res.Text)
	// Output:
	// 1 call: {"to":"john","subject":"Hi","body":"Hello"}
	// 1 error: argument "to" must be a valid email, got "john" (missing @)
	// 2 call: {"to":"john@example.com","subject":"Hi","body":"Hello"}
	// 2 result: {"status":"sent","message_id":"msg-4f58dd","to":"john@example.com","subject":"Hi"}
	// answered Sent.
}
