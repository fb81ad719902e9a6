package llm_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/toolscope/toolscope/llm"
)

// echoModel is the smallest llm.Backend worth the name: a "model" that
// repeats the last request. It renders its raw prompt as ChatML, the format
// of Qwen models, so that Prepare shows exactly what the model would read,
// and it streams its reply a word at a time.
type echoModel struct{}

func (echoModel) Info() llm.Info {
	return llm.Info{Backend: "echo", Model: "echo-1", Mode: llm.ModeRaw}
}

func (echoModel) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	if len(req.Messages) == 0 {
		return llm.Input{}, &llm.Error{Op: "prepare", Problem: "there is no message to answer"}
	}
	var prompt strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&prompt, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	prompt.WriteString("<|im_start|>assistant\n")
	return llm.Input{Mode: llm.ModeRaw, Messages: req.Messages, Prompt: prompt.String(), Options: req.Options}, nil
}

// Stream honours the interface's contract: chunks in order, and a stop as
// soon as ctx ends or fn fails, with that error. It counts a word as a token.
func (echoModel) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	var stats llm.Stats
	if len(in.Messages) == 0 {
		return stats, &llm.Error{Op: "stream", Problem: "the input has no message: make it with Prepare"}
	}
	last := in.Messages[len(in.Messages)-1].Content
	words := strings.SplitAfter("You said: "+last, " ")
	for _, w := range words {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		if err := fn(llm.Chunk{Content: w}); err != nil {
			return stats, err
		}
		stats.OutputTokens++
	}
	stats.DoneReason = "stop"
	return stats, nil
}

// A caller uses every backend alike: Prepare the input, which it can show
// or record, then Stream the reply.
func Example_backend() {
	var backend llm.Backend = echoModel{}
	ctx := context.Background()

	in, err := backend.Prepare(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "Is anyone there?"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(in.Prompt)

	stats, err := backend.Stream(ctx, in, func(c llm.Chunk) error {
		fmt.Printf("%q\n", c.Content)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stats.DoneReason, stats.OutputTokens, "tokens")
	// Output:
	// <|im_start|>user
	// Is anyone there?<|im_end|>
	// <|im_start|>assistant
	// "You "
	// "said: "
	// "Is "
	// "anyone "
	// "there?"
	// stop 5 tokens
}
