package demo_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
)

// The demo model is an llm.Backend like any other: Prepare renders the
// conversation with the Qwen3 template, and Stream writes the raw reply a
// token per chunk, thinking included. With no tools in its prompt, it
// answers in words.
func ExampleModel_Stream() {
	model := demo.New(demo.Config{TokenDelay: 0})
	ctx := context.Background()

	in, err := model.Prepare(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "Send an email to john@example.com about the standup"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	var reply strings.Builder
	stats, err := model.Stream(ctx, in, func(c llm.Chunk) error {
		reply.WriteString(c.Content)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.String())
	fmt.Println(stats.DoneReason, "after", stats.OutputTokens, "tokens")
	// Output:
	// <think>
	// Okay, the user wants me to send an email to john@example.com about the standup. But send_mail isn't among my tools, so I can't do that. I'll tell the user.
	// </think>
	//
	// I can't send emails: send_mail isn't among the tools I was given. I have no tools at all here.
	// stop after 69 tokens
}
