package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/template"
)

// errNoDone reports a stream that stopped before its done line.
var errNoDone = errors.New("Ollama's reply ended before it was done (no done line): the server may have stopped or the connection was cut")

// Stream sends in to Ollama and calls fn with each piece of the reply: raw
// mode sends in.Prompt to /api/generate, chat mode sends in.Messages to
// /api/chat. It returns the done line's counters once the reply is done.
// When fn returns an error or ctx ends, Stream closes the request, which
// stops Ollama generating, and returns that error or ctx's.
func (b *Backend) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	// Canceling on return also covers fn failing: closing the connection
	// early is how Ollama learns to stop.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	opts, err := b.options(ctx, in.Options)
	if err != nil {
		return llm.Stats{}, err
	}
	no := false
	r := reply{fn: fn}
	switch in.Mode {
	case llm.ModeRaw:
		req := &api.GenerateRequest{
			Model:  b.model,
			Prompt: in.Prompt,
			Raw:    true,
			// Thinking is in the prompt already; think=false keeps
			// Ollama's own parser away from the reply.
			Think: &api.ThinkValue{Value: false},
			// Never cut or shift the input: the model must read exactly
			// what the page shows, or fail saying so.
			Truncate: &no,
			Shift:    &no,
			Options:  opts,
		}
		err = b.client.Generate(ctx, req, func(resp api.GenerateResponse) error {
			return r.line(llm.Chunk{Content: resp.Response, Thinking: resp.Thinking}, resp.Done, resp.DoneReason, resp.Metrics)
		})
	case llm.ModeChat:
		req := &api.ChatRequest{
			Model:    b.model,
			Messages: template.APIMessages(in.Messages),
			Think:    &api.ThinkValue{Value: in.Think},
			Truncate: &no,
			Shift:    &no,
			Options:  opts,
		}
		err = b.client.Chat(ctx, req, func(resp api.ChatResponse) error {
			c := llm.Chunk{Content: resp.Message.Content, Thinking: resp.Message.Thinking, ToolCalls: toolCalls(resp.Message.ToolCalls)}
			return r.line(c, resp.Done, resp.DoneReason, resp.Metrics)
		})
	default:
		return llm.Stats{}, fmt.Errorf("input mode %q is not one Ollama can run: use %q or %q", in.Mode, llm.ModeRaw, llm.ModeChat)
	}
	if err := b.finish(ctx, &r, err); err != nil {
		return llm.Stats{}, err
	}
	return r.stats, nil
}

// options are o in Ollama's terms; nil when o sets nothing, which keeps
// the model's own parameters. Stop strings are sent with the model's:
// Ollama's stop list replaces the Modelfile's rather than adding to it.
func (b *Backend) options(ctx context.Context, o *llm.Sampling) (map[string]any, error) {
	if o == nil {
		return nil, nil
	}
	opts := map[string]any{}
	if o.Temperature != nil {
		opts["temperature"] = *o.Temperature
	}
	if o.TopP != nil {
		opts["top_p"] = *o.TopP
	}
	if o.Seed != nil {
		opts["seed"] = *o.Seed
	}
	if o.MaxTokens != nil {
		opts["num_predict"] = *o.MaxTokens
	}
	if len(o.Stop) > 0 {
		m, err := b.modelInfo(ctx)
		if err != nil {
			return nil, err
		}
		opts["stop"] = o.StopWith(m.stop)
	}
	if len(opts) == 0 {
		return nil, nil
	}
	return opts, nil
}

// reply follows one streamed reply.
type reply struct {
	fn    func(llm.Chunk) error
	fnErr error // fn's error, returned as it is
	done  bool
	stats llm.Stats
}

// line handles one NDJSON line: a piece of the reply, the done line, or
// both.
func (r *reply) line(c llm.Chunk, done bool, reason string, m api.Metrics) error {
	if c.Content != "" || c.Thinking != "" || len(c.ToolCalls) > 0 {
		if err := r.fn(c); err != nil {
			r.fnErr = err
			return err
		}
	}
	if done {
		r.done = true
		r.stats = llm.Stats{
			DoneReason:     reason,
			PromptTokens:   m.PromptEvalCount,
			OutputTokens:   m.EvalCount,
			LoadDuration:   m.LoadDuration,
			PromptDuration: m.PromptEvalDuration,
			EvalDuration:   m.EvalDuration,
			TotalDuration:  m.TotalDuration,
		}
	}
	return nil
}

// finish turns how the client's call ended into Stream's error.
func (b *Backend) finish(ctx context.Context, r *reply, err error) error {
	switch {
	case r.fnErr != nil:
		return r.fnErr
	case err != nil:
		return b.explain(ctx, "stream", err)
	case r.done:
		return nil
	case ctx.Err() != nil:
		// The client reads the body until it fails and then returns
		// nil, so a canceled stream looks like a short one.
		return ctx.Err()
	default:
		return errNoDone
	}
}

// toolCalls converts tool calls that Ollama's parser found.
func toolCalls(calls []api.ToolCall) []llm.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]llm.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = llm.ToolCall{Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments.String())}
	}
	return out
}
