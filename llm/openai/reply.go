package openai

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/toolscope/toolscope/llm"
)

// reply follows one streamed reply and keeps toolscope's own clock: the
// servers report tokens but no durations.
type reply struct {
	fn          func(llm.Chunk) error
	fnErr       error // fn's error, returned as it is
	start       time.Time
	first, last time.Time // the first and the latest piece with text
	reason      string    // finish_reason; "" until the reply is done
	prompt, out int
}

// piece passes a piece on, timing it, and notes a finish_reason.
func (r *reply) piece(c llm.Chunk, finish string) error {
	if c.Content != "" || c.Thinking != "" || len(c.ToolCalls) > 0 {
		now := time.Now()
		if r.first.IsZero() {
			r.first = now
		}
		r.last = now
		if err := r.fn(c); err != nil {
			r.fnErr = err
			return err
		}
	}
	if finish != "" {
		r.reason = finish
	}
	return nil
}

// usage keeps the counters of a chunk that has them: the last one, with
// empty choices, when the stream asked for them.
func (r *reply) usage(f respjson.Field, u openai.CompletionUsage) {
	if f.Valid() {
		r.prompt, r.out = int(u.PromptTokens), int(u.CompletionTokens)
	}
}

// stats are the counters: PromptDuration is the time to the first token
// (queue and prompt together, as a client sees them), EvalDuration runs
// from the first token to the last.
func (r *reply) stats() llm.Stats {
	s := llm.Stats{DoneReason: r.reason, PromptTokens: r.prompt, OutputTokens: r.out, TotalDuration: time.Since(r.start)}
	if !r.first.IsZero() {
		s.PromptDuration = r.first.Sub(r.start)
		s.EvalDuration = r.last.Sub(r.first)
	}
	return s
}

// finish turns how a stream ended into Stream's error.
func (b *Backend) finish(ctx context.Context, r *reply, err error) error {
	switch {
	case r.fnErr != nil:
		return r.fnErr
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return b.explain(ctx, "stream", err)
	case r.reason == "":
		return &llm.Error{Op: "stream",
			Problem: "the server's reply ended before it was done (no finish_reason): the server may have stopped or the connection was cut",
			Fix:     &llm.Fix{Do: "look in the server's log at " + b.base}}
	}
	return nil
}
