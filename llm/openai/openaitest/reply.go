package openaitest

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
)

// replyWriter builds one reply in the shape of its endpoint: text
// completion chunks or chat completion chunks.
type replyWriter struct {
	req     Request
	q       Reply
	chat    bool
	id      string
	created int64
	pieces  int // chunks with text, counted as output tokens
}

func newReplyWriter(req Request, q Reply) *replyWriter {
	chat := req.Path == "/v1/chat/completions"
	prefix := "cmpl-"
	if chat {
		prefix = "chatcmpl-"
	}
	return &replyWriter{req: req, q: q, chat: chat, id: prefix + "openaitest", created: time.Now().Unix()}
}

func (rw *replyWriter) split(s string) []string {
	if rw.q.Split != nil {
		return rw.q.Split(s)
	}
	return llmtest.SplitTokens(s)
}

func (rw *replyWriter) reason() string {
	if len(rw.q.ToolCalls) > 0 && rw.chat {
		return cmp.Or(rw.q.FinishReason, "tool_calls")
	}
	return cmp.Or(rw.q.FinishReason, "stop")
}

// chunks are the streamed chunks before the one with finish_reason: on
// chat the role, thinking, text and tool calls; on completions the text.
func (rw *replyWriter) chunks() []any {
	var out []any
	if !rw.chat {
		for _, p := range rw.split(rw.q.Text) {
			out = append(out, rw.chunk(map[string]any{"text": p}, nil))
		}
		rw.pieces = len(out)
		return out
	}
	out = append(out, rw.chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	field := cmp.Or(rw.q.ThinkingField, "reasoning_content")
	for _, p := range rw.split(rw.q.Thinking) {
		out = append(out, rw.chunk(map[string]any{field: p}, nil))
	}
	for _, p := range rw.split(rw.q.Text) {
		out = append(out, rw.chunk(map[string]any{"content": p}, nil))
	}
	for i, c := range rw.q.ToolCalls {
		first := map[string]any{"index": i, "id": fmt.Sprintf("chatcmpl-tool-%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}
		out = append(out, rw.chunk(map[string]any{"tool_calls": []any{first}}, nil))
		for _, p := range rw.split(string(c.Arguments)) {
			frag := map[string]any{"index": i, "function": map[string]any{"arguments": p}}
			out = append(out, rw.chunk(map[string]any{"tool_calls": []any{frag}}, nil))
		}
	}
	rw.pieces = len(out) - 1
	return out
}

// chunk is one streamed chunk with one choice: a delta on chat, text on
// completions.
func (rw *replyWriter) chunk(content map[string]any, finish *string) map[string]any {
	choice := map[string]any{"index": 0, "logprobs": nil, "finish_reason": finish}
	object := "text_completion"
	if rw.chat {
		choice["delta"] = content
		object = "chat.completion.chunk"
	} else {
		choice["text"] = content["text"]
		choice["stop_reason"] = nil
	}
	return map[string]any{"id": rw.id, "object": object, "created": rw.created, "model": rw.req.Model,
		"choices": []any{choice}, "usage": nil}
}

// finish is the chunk that ends the choice.
func (rw *replyWriter) finish() map[string]any {
	reason := rw.reason()
	if rw.chat {
		return rw.chunk(map[string]any{}, &reason)
	}
	return rw.chunk(map[string]any{"text": ""}, &reason)
}

// usageChunk is the last chunk when stream_options.include_usage asked
// for it: no choices, just the counters.
func (rw *replyWriter) usageChunk() map[string]any {
	c := rw.chunk(nil, nil)
	c["choices"] = []any{}
	c["usage"] = rw.usage()
	return c
}

// usage counts tokens as llmtest.SplitTokens cuts them; output is a token a chunk.
func (rw *replyWriter) usage() map[string]int {
	prompt := max(len(llmtest.SplitTokens(rw.req.Prompt+messagesText(rw.req.Messages))), 1)
	out := max(rw.pieces, 1)
	return map[string]int{"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out}
}

// whole is the non-streamed response: what the stream adds up to.
func (rw *replyWriter) whole() map[string]any {
	rw.chunks() // counts the pieces
	reason := rw.reason()
	choice := map[string]any{"index": 0, "logprobs": nil, "finish_reason": reason}
	object := "text_completion"
	if rw.chat {
		object = "chat.completion"
		msg := map[string]any{"role": "assistant", "content": rw.q.Text}
		if rw.q.Thinking != "" {
			msg[cmp.Or(rw.q.ThinkingField, "reasoning_content")] = rw.q.Thinking
		}
		if calls := wholeCalls(rw.q.ToolCalls); len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		choice["message"] = msg
	} else {
		choice["text"] = rw.q.Text
	}
	return map[string]any{"id": rw.id, "object": object, "created": rw.created, "model": rw.req.Model,
		"choices": []any{choice}, "usage": rw.usage()}
}

func wholeCalls(calls []llm.ToolCall) []any {
	var out []any
	for i, c := range calls {
		out = append(out, map[string]any{"id": fmt.Sprintf("chatcmpl-tool-%d", i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": strings.TrimSpace(string(c.Arguments))}})
	}
	return out
}
