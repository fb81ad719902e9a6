package demo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/streamparser"
)

func TestReadPrompt(t *testing.T) {
	sent := "<tool_call>\n" + `{"name": "send_mail", "arguments": {"to": "a@b.co"}}` + "\n</tool_call>"
	in := conversationWith(t, true, allTools,
		user("Email a@b.co about the launch"),
		assistant("<think>\n<tool_call>\n{}\n</tool_call>\n</think>\n\n"+sent),
		response(`{"status":"sent"}`, `{"error":"x"}`),
	)
	c := readPrompt(in.Prompt)
	var names []string
	for _, tl := range c.tools {
		names = append(names, tl.name)
	}
	if !reflect.DeepEqual(names, allTools) {
		t.Errorf("tools = %v, want %v", names, allTools)
	}
	if send, _ := c.tool("send_mail"); !reflect.DeepEqual(send.params, []string{"to", "subject", "body"}) {
		t.Errorf("send_mail params = %v", send.params)
	}
	if got := c.today.Format("2006-01-02"); got != "2026-11-29" {
		t.Errorf("today = %s, want 2026-11-29", got)
	}
	if c.request != "Email a@b.co about the launch" {
		t.Errorf("request = %q", c.request)
	}
	want := []round{{
		calls:     []call{{name: "send_mail", args: map[string]any{"to": "a@b.co"}}},
		responses: []string{`{"status":"sent"}`, `{"error":"x"}`},
	}}
	if !reflect.DeepEqual(c.rounds, want) {
		t.Errorf("rounds = %+v, want %+v", c.rounds, want)
	}
	if c.start != thinkFirst {
		t.Errorf("opening = %v, want thinkFirst", c.start)
	}
}

func TestReadOpening(t *testing.T) {
	on := conversationWith(t, true, allTools, user("hi")).Prompt
	off := conversationWith(t, false, allTools, user("hi")).Prompt
	tests := []struct {
		name   string
		prompt string
		want   opening
	}{
		{"thinking on", on, thinkFirst},
		{"empty block written", off, thinkWritten},
		{"no_think without the block", strings.TrimSuffix(off, "<think>\n\n</think>\n\n"), thinkSkipped},
		{"not a chat prompt", "hi", thinkFirst},
	}
	for _, tt := range tests {
		if got := readPrompt(tt.prompt).start; got != tt.want {
			t.Errorf("%s: opening = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A call whose JSON is broken still counts, so that results stay paired
// with the calls they answer.
func TestReadCallsKeepsBrokenBlocks(t *testing.T) {
	got := readCalls("<tool_call>\n{\"name\": \"send_mail\", \n</tool_call>\n<tool_call>\n{\"name\": \"cancel_meeting\", \"arguments\": {}}\n</tool_call>", streamparser.Hermes, allTools)
	want := []call{{}, {name: "cancel_meeting", args: map[string]any{}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readCalls = %+v, want %+v", got, want)
	}
}

// Parameters keep the schema's order; a line that is no signature is
// skipped.
func TestReadTools(t *testing.T) {
	system := "<tools>\n" +
		`{"type": "function", "function": {"name": "b", "parameters": {"$schema": "x", "type": "object", "properties": {"z": {"type": ["number", "string"], "default": 1}, "a": {"type": "object", "properties": {"n": {}}, "additionalProperties": false}}}}}` + "\n" +
		"not a signature\n" +
		`{"type": "function", "function": {"name": "none", "parameters": {"type": "object"}}}` + "\n</tools>"
	want := []tool{{name: "b", params: []string{"z", "a"}}, {name: "none"}}
	if got := readTools(system); !reflect.DeepEqual(got, want) {
		t.Errorf("readTools = %+v, want %+v", got, want)
	}
}
