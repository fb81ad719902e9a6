package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/toolscope/toolscope/llm"
)

// Stream sends in to the server and calls fn with each piece of the reply:
// raw mode sends in.Prompt to /v1/completions, chat mode in.Messages to
// /v1/chat/completions, both streamed with the usage asked for. It returns
// once a choice has its finish_reason, with the counters of `usage` and
// its own clock. When fn returns an error or ctx ends, Stream closes the
// request, which stops the server generating, and returns that error or
// ctx's.
func (b *Backend) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // closing the connection is how the server learns to stop
	model, err := b.resolveModel(ctx)
	if err != nil {
		return llm.Stats{}, err
	}
	r := reply{fn: fn, start: time.Now()}
	switch in.Mode {
	case llm.ModeRaw:
		err = b.streamRaw(ctx, model, in, &r)
	case llm.ModeChat:
		err = b.streamChat(ctx, model, in, &r)
	default:
		return llm.Stats{}, fmt.Errorf("input mode %q is not one this backend can run: use %q or %q", in.Mode, llm.ModeRaw, llm.ModeChat)
	}
	if err := b.finish(ctx, &r, err); err != nil {
		return llm.Stats{}, err
	}
	return r.stats(), nil
}

var includeUsage = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}

func (b *Backend) streamRaw(ctx context.Context, model string, in llm.Input, r *reply) error {
	o := samplingOf(in.Options)
	params := openai.CompletionNewParams{
		Model:         openai.CompletionNewParamsModel(model),
		Prompt:        openai.CompletionNewParamsPromptUnion{OfString: openai.String(in.Prompt)},
		MaxTokens:     o.maxTokens,
		Temperature:   o.temperature,
		TopP:          o.topP,
		Seed:          o.seed,
		StreamOptions: includeUsage,
	}
	if !o.maxTokens.Valid() {
		// /v1/completions writes 16 tokens unless told; null lets the
		// reply run to the end of the context, as chat does.
		params.MaxTokens = param.Null[int64]()
	}
	var stop []string
	if t, err := b.template(model); err == nil {
		stop = t.Stop // the template's end of turn, which the request's stop strings must not replace
	}
	if stop = in.Options.StopWith(stop); len(stop) > 0 {
		params.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: stop}
	}
	// vLLM drops special tokens from the text unless told not to, and
	// dialects such as Llama 3's <|python_tag|> are special tokens.
	stream := b.client.Completions.NewStreaming(ctx, params, option.WithJSONSet("skip_special_tokens", false))
	return each(stream, func(c openai.Completion) error {
		for _, ch := range c.Choices {
			if err := r.piece(llm.Chunk{Content: ch.Text}, string(ch.FinishReason)); err != nil {
				return err
			}
		}
		r.usage(c.JSON.Usage, c.Usage)
		return nil
	})
}

func (b *Backend) streamChat(ctx context.Context, model string, in llm.Input, r *reply) error {
	o := samplingOf(in.Options)
	params := openai.ChatCompletionNewParams{
		Model:    model,
		Messages: chatMessages(in.Messages),
		// max_tokens rather than max_completion_tokens: every
		// OpenAI-compatible server reads it, not all the newer name.
		MaxTokens:     o.maxTokens,
		Temperature:   o.temperature,
		TopP:          o.topP,
		Seed:          o.seed,
		StreamOptions: includeUsage,
	}
	if stop := in.Options.StopWith(nil); len(stop) > 0 {
		params.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: stop}
	}
	// Templates that can think (Qwen3's) read enable_thinking; others
	// ignore it.
	kwargs := option.WithJSONSet("chat_template_kwargs", map[string]any{"enable_thinking": in.Think})
	stream := b.client.Chat.Completions.NewStreaming(ctx, params, kwargs)
	calls := toolCalls{}
	return each(stream, func(c openai.ChatCompletionChunk) error {
		for _, ch := range c.Choices {
			d := ch.Delta
			chunk := llm.Chunk{Content: d.Content, Thinking: reasoning(d.JSON.ExtraFields), ToolCalls: calls.add(d.ToolCalls)}
			if ch.FinishReason != "" {
				chunk.ToolCalls = append(chunk.ToolCalls, calls.rest()...)
			}
			if err := r.piece(chunk, ch.FinishReason); err != nil {
				return err
			}
		}
		r.usage(c.JSON.Usage, c.Usage)
		return nil
	})
}

// sampling are the SDK's fields for an llm.Sampling, which the completions
// and chat APIs name alike; an unset one is left out of the request.
type sampling struct {
	temperature, topP param.Opt[float64]
	seed, maxTokens   param.Opt[int64]
}

func samplingOf(o *llm.Sampling) sampling {
	var s sampling
	if o == nil {
		return s
	}
	if o.Temperature != nil {
		s.temperature = openai.Float(*o.Temperature)
	}
	if o.TopP != nil {
		s.topP = openai.Float(*o.TopP)
	}
	if o.Seed != nil {
		s.seed = openai.Int(*o.Seed)
	}
	if o.MaxTokens != nil {
		s.maxTokens = openai.Int(int64(*o.MaxTokens))
	}
	return s
}

// each calls fn for every event of stream, and returns the first error of
// fn or of the stream.
func each[T any](stream *ssestream.Stream[T], fn func(T) error) error {
	defer stream.Close()
	for stream.Next() {
		if err := fn(stream.Current()); err != nil {
			return err
		}
	}
	return stream.Err()
}

// chatMessages converts messages for the SDK. Earlier turns' thinking is
// left out: the chat API has no place for it, and chat templates drop it.
func chatMessages(msgs []llm.Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			out[i] = openai.SystemMessage(m.Content)
		case llm.RoleAssistant:
			out[i] = openai.AssistantMessage(m.Content)
		default:
			out[i] = openai.UserMessage(m.Content)
		}
	}
	return out
}

// reasoning reads a delta's thinking, which the SDK does not model:
// vLLM's reasoning parsers send `reasoning_content` (and, since 0.10,
// `reasoning`), as DeepSeek's API does.
func reasoning(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		// The SDK marks fields it does not model as invalid; Raw still
		// holds them.
		var s string
		if json.Unmarshal([]byte(extra[key].Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// toolCalls assembles tool calls the server parsed, which arrive as a name
// and then argument fragments, each under its index.
type toolCalls struct {
	byIndex map[int64]*llm.ToolCall
	args    map[int64][]byte
	order   []int64 // indices as first seen, not yet emitted
}

// add takes a delta's fragments and returns the calls they complete: a
// call is whole once a later one starts.
func (tc *toolCalls) add(deltas []openai.ChatCompletionChunkChoiceDeltaToolCall) []llm.ToolCall {
	var done []llm.ToolCall
	for _, d := range deltas {
		if tc.byIndex == nil {
			tc.byIndex, tc.args = map[int64]*llm.ToolCall{}, map[int64][]byte{}
		}
		if _, ok := tc.byIndex[d.Index]; !ok {
			done = append(done, tc.rest()...)
			tc.byIndex[d.Index] = &llm.ToolCall{}
			tc.order = append(tc.order, d.Index)
		}
		tc.byIndex[d.Index].Name += d.Function.Name
		tc.args[d.Index] = append(tc.args[d.Index], d.Function.Arguments...)
	}
	return done
}

// rest returns the calls not yet emitted, in order, and forgets them.
func (tc *toolCalls) rest() []llm.ToolCall {
	var out []llm.ToolCall
	for _, i := range tc.order {
		c := *tc.byIndex[i]
		c.Arguments = rawArguments(tc.args[i])
		out = append(out, c)
	}
	tc.order = tc.order[:0]
	return out
}

// rawArguments keeps arguments that are not JSON, as a JSON string, so
// that what the server sent is shown rather than lost.
func rawArguments(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(b) {
		return slices.Clone(b)
	}
	s, _ := json.Marshal(string(b))
	return s
}
