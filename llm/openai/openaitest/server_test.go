package openaitest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolscope/toolscope/llm"
)

func client(s *Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(s.URL()), option.WithAPIKey(""), option.WithMaxRetries(0))
}

var script = Reply{
	Thinking:  "Think twice.",
	Text:      "Paris <b>is</b> sunny.",
	ToolCalls: []llm.ToolCall{{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}},
}

// The whole chat response is what its stream adds up to.
func TestChatWholeEqualsStream(t *testing.T) {
	s := New(t)
	s.Reply(script, script)
	c := client(s)
	params := openai.ChatCompletionNewParams{Model: DefaultModel, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather?")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	stream := c.Chat.Completions.NewStreaming(context.Background(), params)
	var acc openai.ChatCompletionAccumulator
	var thinking string
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			var s string
			json.Unmarshal([]byte(ch.Delta.JSON.ExtraFields["reasoning_content"].Raw()), &s)
			thinking += s
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	whole, err := c.Chat.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	got, want := acc.Choices[0], whole.Choices[0]
	if got.Message.Content != want.Message.Content || got.FinishReason != want.FinishReason || thinking != script.Thinking {
		t.Errorf("stream %q/%q/%q, whole %q/%q", got.Message.Content, got.FinishReason, thinking, want.Message.Content, want.FinishReason)
	}
	if len(got.Message.ToolCalls) != 1 || got.Message.ToolCalls[0].Function.Arguments != want.Message.ToolCalls[0].Function.Arguments {
		t.Errorf("tool calls: stream %+v, whole %+v", got.Message.ToolCalls, want.Message.ToolCalls)
	}
	if acc.Usage.CompletionTokens != whole.Usage.CompletionTokens || acc.Usage.PromptTokens != whole.Usage.PromptTokens {
		t.Errorf("usage: stream %+v, whole %+v", acc.Usage, whole.Usage)
	}
}

func TestCompletionWholeEqualsStream(t *testing.T) {
	s := New(t)
	s.Reply(script, script)
	c := client(s)
	params := openai.CompletionNewParams{Model: DefaultModel, Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Weather?")}}
	stream := c.Completions.NewStreaming(context.Background(), params)
	var text, reason string
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			text += ch.Text
			reason += string(ch.FinishReason)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	whole, err := c.Completions.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if text != whole.Choices[0].Text || reason != string(whole.Choices[0].FinishReason) || text != script.Text {
		t.Errorf("stream %q (%s), whole %q (%s)", text, reason, whole.Choices[0].Text, whole.Choices[0].FinishReason)
	}
	if r := s.Requests(); len(r) != 2 || !r[0].Stream || r[1].Stream {
		t.Errorf("requests %+v", r)
	}
}

func TestErrorsInOpenAIShape(t *testing.T) {
	s := New(t)
	c := client(s)
	_, err := c.Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Completions.New(context.Background(), openai.CompletionNewParams{Model: "nope", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}})
	var api *openai.Error
	if !errors.As(err, &api) || api.StatusCode != 404 || api.Message != "The model `nope` does not exist." {
		t.Errorf("unknown model: %v", err)
	}
	s.Reply(Reply{Status: 503, Error: "overloaded"})
	_, err = c.Completions.New(context.Background(), openai.CompletionNewParams{Model: DefaultModel, Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}})
	if !errors.As(err, &api) || api.StatusCode != 503 || api.Message != "overloaded" {
		t.Errorf("scripted status: %v", err)
	}
}
