package template

import (
	"testing"

	"github.com/toolscope/toolscope/llm"
)

func TestRenderQwen3(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "Be brief."},
		{Role: llm.RoleUser, Content: "Mail john"},
		{Role: llm.RoleAssistant, Content: "<tool_call>\n{}\n</tool_call>", Thinking: "dropped: before the last user turn"},
		{Role: llm.RoleUser, Content: "<tool_response>\n{}\n</tool_response>"},
	}
	head := "<|im_start|>system\n\nBe brief.<|im_end|>\n<|im_start|>user\nMail john<|im_end|>\n" +
		"<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n{}\n</tool_response>"
	for _, c := range []struct {
		think bool
		want  string
	}{
		{true, head + " /think<|im_end|>\n<|im_start|>assistant\n"},
		{false, head + " /no_think<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
	} {
		got, err := Render(Qwen3, msgs, c.think)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("think=%v\n got: %q\nwant: %q", c.think, got, c.want)
		}
	}
}

func TestRenderBadTemplate(t *testing.T) {
	if _, err := Render("{{ .Messages", nil, false); err == nil {
		t.Fatal("a broken template rendered without error")
	}
}
