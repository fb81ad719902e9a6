package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
)

// The built-in stub tools as the agent offers them.
var stubSignatures = map[string]string{
	"send_mail":        `{"name":"send_mail","description":"Send an email.","parameters":{"type":"object","properties":{"to":{"type":"string","format":"email","description":"Recipient address"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","subject","body"]}}`,
	"schedule_meeting": `{"name":"schedule_meeting","description":"Put a meeting in the calendar.","parameters":{"type":"object","properties":{"title":{"type":"string"},"attendees":{"type":"array","items":{"type":"string","format":"email"}},"date":{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$"},"time":{"type":"string","pattern":"^\\d{2}:\\d{2}$"}},"required":["title","attendees","date","time"]}}`,
	"cancel_meeting":   `{"name":"cancel_meeting","description":"Cancel a meeting.","parameters":{"type":"object","properties":{"title":{"type":"string"},"date":{"type":"string"}},"required":["title","date"]}}`,
}

var allTools = []string{"send_mail", "schedule_meeting", "cancel_meeting"}

// systemPrompt writes the system message the agent writes, offering tools.
func systemPrompt(tools ...string) string {
	var b strings.Builder
	b.WriteString("You are a helpful assistant with access to tools. Use a tool when it helps to answer; otherwise answer directly.\n")
	b.WriteString("Today is Sunday, 2026-11-29. The time is 21:49 in time zone UTC (UTC+00:00).\n\n")
	b.WriteString("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n")
	b.WriteString("You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n")
	for _, name := range tools {
		b.WriteString(`{"type": "function", "function": ` + stubSignatures[name] + "}\n")
	}
	b.WriteString("</tools>\n\n")
	b.WriteString("For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n")
	b.WriteString("<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>")
	return b.String()
}

// conversationWith renders a conversation that starts with the system
// prompt offering tools, the way Prepare does.
func conversationWith(t *testing.T, think bool, tools []string, turns ...llm.Message) llm.Input {
	t.Helper()
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: systemPrompt(tools...)}}, turns...)
	in, err := New(Config{}).Prepare(context.Background(), llm.Request{Messages: msgs, Think: &think})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return in
}

func user(s string) llm.Message      { return llm.Message{Role: llm.RoleUser, Content: s} }
func assistant(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

// streamAll streams the reply to in and returns its chunks.
func streamAll(t *testing.T, in llm.Input) []string {
	t.Helper()
	var chunks []string
	_, err := New(Config{}).Stream(context.Background(), in, func(c llm.Chunk) error {
		chunks = append(chunks, c.Content)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return chunks
}
