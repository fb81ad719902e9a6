package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/template"
)

// errNoDone reports a stream that stopped before its done line.
var errNoDone = errors.New("Ollama's reply ended before it was done (no done line): the server may have stopped or the connection was cut")

// repeatLimit is Ollama's guard against a model that loops: Ollama 0.17.4
// (llm/server.go) compares each piece the model writes, spaces trimmed,
// with the one before, and once one would come more than 30 times in a
// row it ends the reply before that piece, with HTTP 200 and no done
// line, as a cut connection ends it.
const repeatLimit = 30

// repeats counts, as Ollama's guard does, how many times in a row the
// reply's latest piece repeated the one before it.
type repeats struct {
	piece string // the latest piece, spaces trimmed
	n     int
}

func (r *repeats) add(piece string) {
	if p := strings.TrimSpace(piece); p == r.piece {
		r.n++
	} else {
		r.piece, r.n = p, 0
	}
}

// stoppedByGuard reports whether a reply that ended with no done line
// ended where Ollama's guard stops one: it had sent all the repeats the
// guard allows, and the next would have been one too many.
func (r repeats) stoppedByGuard() bool { return r.n >= repeatLimit }

// errRepeated says that Ollama's guard stopped a model that wrote piece
// over and over: the server is fine, the model looped, as small models
// do, and sampling that discourages repeats or another model helps.
func errRepeated(piece string) error {
	what := fmt.Sprintf("%q", piece)
	if piece == "" {
		what = "blank space"
	}
	return &llm.Error{Op: "stream",
		Problem: fmt.Sprintf("the model repeated itself, writing %s more than %d times in a row, and Ollama stopped the reply there: the reply is cut off", what, repeatLimit),
		Fix: &llm.Fix{Do: "give the model a repeat penalty or a higher temperature (PARAMETER repeat_penalty 1.2 and PARAMETER temperature 0.8 in a Modelfile, or temperature in a /v1 request); small models fall into such loops more than larger ones",
			Setting: llm.SettingModel},
		Err: errNoDone}
}

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
	fn      func(llm.Chunk) error
	fnErr   error // fn's error, returned as it is
	done    bool
	stats   llm.Stats
	repeats repeats
}

// line handles one NDJSON line: a piece of the reply, the done line, or
// both.
func (r *reply) line(c llm.Chunk, done bool, reason string, m api.Metrics) error {
	if c.Content != "" || c.Thinking != "" {
		r.repeats.add(c.Thinking + c.Content)
	}
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
	case r.repeats.stoppedByGuard():
		return errRepeated(r.repeats.piece)
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
