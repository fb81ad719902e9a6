package demo

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// parsed is a reply taken apart the way toolscope's parser sees it.
type parsed struct {
	thinking string
	text     string
	rawCalls []string // the JSON inside each <tool_call> block
	calls    []gotCall
}

type gotCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

var (
	thinkBlockRE = regexp.MustCompile(`(?s)^<think>\n(.*?)\n</think>\n\n`)
	callBlockRE  = regexp.MustCompile(`(?s)<tool_call>\n(.*?)\n</tool_call>`)
)

// parseReply splits raw output into reasoning, text and calls, and fails
// the test when the calls are not laid out as Hermes blocks, one a line.
func parseReply(t *testing.T, out string) parsed {
	t.Helper()
	var p parsed
	if m := thinkBlockRE.FindStringSubmatch(out); m != nil {
		p.thinking = m[1]
		out = out[len(m[0]):]
	}
	blocks := callBlockRE.FindAllStringSubmatch(out, -1)
	var layout []string
	for _, m := range blocks {
		layout = append(layout, m[0])
		var c gotCall
		if err := json.Unmarshal([]byte(m[1]), &c); err != nil {
			t.Fatalf("call JSON %q does not parse: %v", m[1], err)
		}
		p.rawCalls = append(p.rawCalls, m[1])
		p.calls = append(p.calls, c)
	}
	if len(blocks) > 0 && out != strings.Join(layout, "\n") {
		t.Fatalf("calls are not bare <tool_call> blocks separated by newlines:\n%s", out)
	}
	if len(blocks) == 0 {
		p.text = out
	}
	return p
}

func replyTo(t *testing.T, in llm.Input) parsed {
	t.Helper()
	return parseReply(t, strings.Join(streamAll(t, in), ""))
}

func TestFirstRoundCalls(t *testing.T) {
	type want struct {
		name string
		args map[string]any // every argument but body
		body []string       // what the body must mention
	}
	tests := []struct {
		request  string
		thinking []string
		calls    []want
	}{{
		request:  "Send an email to john@example.com about tomorrow's standup",
		thinking: []string{"send_mail", "tomorrow is Monday, 2026-11-30"},
		calls: []want{{name: "send_mail",
			args: map[string]any{"to": "john@example.com", "subject": "Standup"},
			body: []string{"Hi John", "standup", "Monday, November 30"}}},
	}, {
		request:  "Schedule a meeting with alice@co.com on 2026-04-01 at 10:00",
		thinking: []string{"schedule_meeting", "2026-04-01"},
		calls: []want{{name: "schedule_meeting",
			args: map[string]any{"title": "Meeting with Alice", "attendees": []any{"alice@co.com"}, "date": "2026-04-01", "time": "10:00"}}},
	}, {
		request:  "Cancel the standup meeting on 2026-12-01",
		thinking: []string{"cancel_meeting", "Tuesday"},
		calls: []want{{name: "cancel_meeting",
			args: map[string]any{"title": "standup", "date": "2026-12-01"}}},
	}, {
		request:  "Email alice@co.com and bob@co.com about the launch",
		thinking: []string{"alice@co.com", "bob@co.com"},
		calls: []want{
			{name: "send_mail", args: map[string]any{"to": "alice@co.com", "subject": "Launch"}, body: []string{"Hi Alice", "launch"}},
			{name: "send_mail", args: map[string]any{"to": "bob@co.com", "subject": "Launch"}, body: []string{"Hi Bob", "launch"}},
		},
	}, {
		request:  "Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda",
		thinking: []string{"2026-11-30", "09:00", `"him" means bob@co.com`},
		calls: []want{
			{name: "schedule_meeting", args: map[string]any{"title": "Sync", "attendees": []any{"bob@co.com"}, "date": "2026-11-30", "time": "09:00"}},
			{name: "send_mail", args: map[string]any{"to": "bob@co.com", "subject": "Agenda: Sync"}, body: []string{"Hi Bob", "agenda", "Monday, November 30 at 09:00"}},
		},
	}, {
		request:  "Could you please schedule a review with zoë@example.com next Friday at 3pm?",
		thinking: []string{"next Friday is 2026-12-04", `"3pm" as 15:00`},
		calls: []want{{name: "schedule_meeting",
			args: map[string]any{"title": "Review", "attendees": []any{"zoë@example.com"}, "date": "2026-12-04", "time": "15:00"}}},
	}, {
		request:  "Cancel tomorrow's standup",
		thinking: []string{"tomorrow is Monday, 2026-11-30"},
		calls: []want{{name: "cancel_meeting",
			args: map[string]any{"title": "standup", "date": "2026-11-30"}}},
	}, {
		request:  "Remind alice@co.com about the 1:1 on Friday",
		thinking: []string{"Friday is 2026-12-04"},
		calls: []want{{name: "send_mail",
			args: map[string]any{"to": "alice@co.com", "subject": "1:1"},
			body: []string{"1:1 on Friday, December 4"}}},
	}, {
		request:  "Cancel the design review on December 1",
		thinking: []string{"December 1 is Tuesday, 2026-12-01"},
		calls: []want{{name: "cancel_meeting",
			args: map[string]any{"title": "design review", "date": "2026-12-01"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			got := replyTo(t, conversationWith(t, true, allTools, user(tt.request)))
			for _, s := range tt.thinking {
				if !strings.Contains(got.thinking, s) {
					t.Errorf("thinking %q does not mention %q", got.thinking, s)
				}
			}
			if len(got.calls) != len(tt.calls) {
				t.Fatalf("got %d calls %q, want %d", len(got.calls), got.rawCalls, len(tt.calls))
			}
			for i, w := range tt.calls {
				c := got.calls[i]
				body, _ := c.Arguments["body"].(string)
				delete(c.Arguments, "body")
				if c.Name != w.name || !reflect.DeepEqual(c.Arguments, w.args) {
					t.Errorf("call %d = %s %v, want %s %v", i, c.Name, c.Arguments, w.name, w.args)
				}
				for _, s := range w.body {
					if !strings.Contains(body, s) {
						t.Errorf("call %d body %q does not mention %q", i, body, s)
					}
				}
			}
		})
	}
}

func TestCallIsWrittenInHermesFormat(t *testing.T) {
	got := replyTo(t, conversationWith(t, true, allTools, user("Cancel the standup meeting on 2026-12-01")))
	want := `{"name": "cancel_meeting", "arguments": {"title": "standup", "date": "2026-12-01"}}`
	if len(got.rawCalls) != 1 || got.rawCalls[0] != want {
		t.Errorf("calls = %q, want [%q]", got.rawCalls, want)
	}
}

func TestThinkingOff(t *testing.T) {
	in := conversationWith(t, false, allTools, user("Send an email to john@example.com about tomorrow's standup"))
	out := strings.Join(streamAll(t, in), "")
	if strings.Contains(out, "<think>") || !strings.HasPrefix(out, "<tool_call>\n") {
		t.Errorf("with thinking off the reply should be the call alone, got:\n%s", out)
	}
}

// Without the empty block that the template writes, a /no_think request
// gets one from the model itself, as Qwen3 does.
func TestNoThinkWithoutEmptyBlock(t *testing.T) {
	in := conversationWith(t, false, allTools, user("hello"))
	prompt, ok := strings.CutSuffix(in.Prompt, "<think>\n\n</think>\n\n")
	if !ok {
		t.Fatalf("the template wrote no empty think block:\n%s", in.Prompt)
	}
	in.Prompt = prompt
	out := strings.Join(streamAll(t, in), "")
	rest, ok := strings.CutPrefix(out, "<think>\n\n</think>\n\n")
	if !ok || strings.Contains(rest, "<think>") || !strings.Contains(rest, "Hello") {
		t.Errorf("want an empty think block then the greeting, got:\n%s", out)
	}
}

func TestPlainReplies(t *testing.T) {
	tests := []struct {
		name     string
		tools    []string
		request  string
		thinking string // what the reasoning must mention
		text     []string
	}{
		{"no address", allTools, "Send an email about the launch", "no recipient address", []string{"email address"}},
		{"name without address", allTools, "Send an email to John about the launch", "John", []string{"John's email address"}},
		{"no date or time", allTools, "Schedule a sync with bob@co.com", "no date or time", []string{"date and time", "sync"}},
		{"no date to cancel", allTools, "Cancel the standup", "no date", []string{"what date", "standup"}},
		{"no topic", allTools, "Email bob@co.com", "what the email is about", []string{"What should the email be about?"}},
		{"topic only named as it", allTools, "I have a standup tomorrow, email john@example.com about it", "what the email is about", []string{"What should the email be about?"}},
		{"general question", allTools, "What is the capital of France?", "demo model", []string{"demo model", "send emails", "Ollama"}},
		{"greeting", allTools, "hello", "hello", []string{"Hello!", "schedule meetings"}},
		{"thanks", allTools, "Thanks!", "thanking", []string{"You're welcome"}},
		{"tool not offered", []string{"cancel_meeting"}, "Send an email to john@example.com about the launch", "send_mail isn't among my tools", []string{"can't send emails", "cancel_meeting"}},
		{"one of two tools not offered", []string{"send_mail"}, "Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda", "schedule_meeting", []string{"can't schedule meetings"}},
		{"no tools", nil, "Cancel the standup meeting on 2026-12-01", "cancel_meeting", []string{"no tools"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := replyTo(t, conversationWith(t, true, tt.tools, user(tt.request)))
			if len(got.calls) > 0 {
				t.Fatalf("want no call, got %q", got.rawCalls)
			}
			if !strings.Contains(strings.ToLower(got.thinking), strings.ToLower(tt.thinking)) {
				t.Errorf("thinking %q does not mention %q", got.thinking, tt.thinking)
			}
			for _, s := range tt.text {
				if !strings.Contains(strings.ToLower(got.text), strings.ToLower(s)) {
					t.Errorf("reply %q does not mention %q", got.text, s)
				}
			}
		})
	}
}

func TestOnlyOfferedToolsAreCalled(t *testing.T) {
	requests := []string{
		"Send an email to john@example.com about tomorrow's standup",
		"Schedule a meeting with alice@co.com on 2026-04-01 at 10:00",
		"Cancel the standup meeting on 2026-12-01",
		"Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda",
	}
	for mask := range 1 << len(allTools) {
		var offered []string
		for i, name := range allTools {
			if mask&(1<<i) != 0 {
				offered = append(offered, name)
			}
		}
		for _, r := range requests {
			for _, c := range replyTo(t, conversationWith(t, true, offered, user(r))).calls {
				if !slices.Contains(offered, c.Name) {
					t.Errorf("offered %v, %q called %s", offered, r, c.Name)
				}
			}
		}
	}
}

// A tool offered with fewer parameters than the built-in one gets only
// the arguments its schema lists.
func TestArgumentsFollowTheOfferedSchema(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "cc": {"type": "string"}}}`)
	send := tools.Func("send_mail", "Send an email.", schema, func(context.Context, map[string]any) (string, error) { return "sent", nil })
	got := replyTo(t, render(t, streamparser.Hermes, true, []tools.Tool{send}, user("Send an email to john@example.com about the launch")))
	if len(got.calls) != 1 {
		t.Fatalf("calls = %q, want one", got.rawCalls)
	}
	if _, ok := got.calls[0].Arguments["body"]; ok || got.calls[0].Arguments["to"] != "john@example.com" {
		t.Errorf("arguments = %v, want to and subject only", got.calls[0].Arguments)
	}
}

func response(results ...string) llm.Message {
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("<tool_response>\n" + r + "\n</tool_response>")
	}
	return user(b.String())
}

// firstRound returns the demo model's own first reply to request.
func firstRound(t *testing.T, request string) llm.Message {
	t.Helper()
	return assistant(strings.Join(streamAll(t, conversationWith(t, true, allTools, user(request))), ""))
}

const badSchedule = "<tool_call>\n" +
	`{"name": "schedule_meeting", "arguments": {"title": "Sync", "attendees": ["bob@co.com"], "date": "tomorrow", "time": "09:00"}}` +
	"\n</tool_call>"

const badDateError = `{"error":"invalid arguments: at '/date': 'tomorrow' does not match pattern '^\\d{4}-\\d{2}-\\d{2}$'"}`

func TestAnswerAfterToolResponses(t *testing.T) {
	const (
		mail     = "Send an email to john@example.com about tomorrow's standup"
		twoMails = "Email alice@co.com and bob@co.com about the launch"
		sync     = "Schedule a sync with bob@co.com tomorrow at 9"
	)
	tests := []struct {
		name  string
		turns []llm.Message
		text  []string // what the answer must say, once each
		call  string   // the raw call JSON wanted instead of an answer
	}{{
		name:  "sent",
		turns: []llm.Message{user(mail), firstRound(t, mail), response(`{"status":"sent","message_id":"msg-1a2b3c","to":"john@example.com"}`)},
		text:  []string{"Your email to john@example.com has been sent (message id msg-1a2b3c)."},
	}, {
		name:  "error",
		turns: []llm.Message{user(mail), firstRound(t, mail), response(`{"error":"SMTP relay refused the message"}`)},
		text:  []string{"couldn't send the email to john@example.com", "SMTP relay refused the message"},
	}, {
		name: "one of two failed",
		turns: []llm.Message{user(twoMails), firstRound(t, twoMails),
			response(`{"status":"sent","message_id":"msg-1","to":"alice@co.com"}`, `{"error":"mailbox full"}`)},
		text: []string{"email to alice@co.com has been sent (message id msg-1)", "couldn't send the email to bob@co.com: mailbox full"},
	}, {
		name:  "scheduled",
		turns: []llm.Message{user(sync), firstRound(t, sync), response(`{"status":"scheduled","meeting_id":"mtg-7"}`)},
		text:  []string{`I scheduled "Sync" with bob@co.com for Monday, November 30 at 09:00 (meeting id mtg-7).`},
	}, {
		name: "unknown tool",
		turns: []llm.Message{user(sync), assistant("<tool_call>\n{\"name\": \"foo\", \"arguments\": {}}\n</tool_call>"),
			response(`{"error":"unknown tool \"foo\"; available tools: send_mail, schedule_meeting, cancel_meeting"}`)},
		text: []string{`unknown tool "foo"`},
	}, {
		name:  "fixable argument is retried",
		turns: []llm.Message{user(sync), assistant(badSchedule), response(badDateError)},
		call:  `{"name": "schedule_meeting", "arguments": {"title": "Sync", "attendees": ["bob@co.com"], "date": "2026-11-30", "time": "09:00"}}`,
	}, {
		name: "retried only once",
		turns: []llm.Message{user(sync), assistant(badSchedule), response(badDateError),
			assistant(badSchedule), response(badDateError)},
		text: []string{`couldn't schedule "Sync"`, "does not match pattern", "Sync"},
	}, {
		name: "retry succeeded",
		turns: []llm.Message{user(sync), assistant(badSchedule), response(badDateError),
			firstRound(t, sync), response(`{"status":"scheduled","meeting_id":"mtg-8"}`)},
		text: []string{`I scheduled "Sync" with bob@co.com for Monday, November 30 at 09:00 (meeting id mtg-8).`, "Sync"},
	}, {
		name:  "error on an argument the request does not settle",
		turns: []llm.Message{user(sync), firstRound(t, sync), response(`{"error":"date 2026-11-30 is a holiday"}`)},
		text:  []string{"couldn't schedule", "holiday"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := replyTo(t, conversationWith(t, true, allTools, tt.turns...))
			if got.thinking == "" {
				t.Error("the answer has no reasoning")
			}
			if tt.call != "" {
				if len(got.rawCalls) != 1 || got.rawCalls[0] != tt.call {
					t.Fatalf("calls = %q, want [%q]", got.rawCalls, tt.call)
				}
				return
			}
			if len(got.calls) > 0 {
				t.Fatalf("want an answer, got calls %q", got.rawCalls)
			}
			// Once each: a failure that was retried is not reported again.
			for _, s := range tt.text {
				if n := strings.Count(got.text, s); n != 1 {
					t.Errorf("answer %q says %q %d times, want once", got.text, s, n)
				}
			}
		})
	}
}

// Pieces are whole characters, and tags and call markers arrive whole,
// one a piece, as the single tokens they are.
func TestPieces(t *testing.T) {
	t.Parallel()
	requests := []string{
		"Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda",
		"Send an email to zoë@example.com about the café 🎉 opening",
		"Convert 100 °C to Fahrenheit",
	}
	for _, d := range streamparser.Dialects() {
		specials := []string{"<think>", "</think>", dialectMarkers[d]}
		if d == streamparser.Hermes {
			specials = append(specials, "</tool_call>")
		}
		for _, r := range requests {
			for _, think := range []bool{true, false} {
				chunks := streamAll(t, render(t, d, think, offer(t, everyTool...), user(r)))
				out := strings.Join(chunks, "")
				for _, c := range chunks {
					if c == "" || !utf8.ValidString(c) {
						t.Errorf("%s %q: chunk %q is empty or splits a character", d, r, c)
					}
				}
				for _, special := range specials {
					whole := 0
					for _, c := range chunks {
						if c == special {
							whole++
						}
					}
					if n := strings.Count(out, special); n != whole {
						t.Errorf("%s %q: %s occurs %d times but arrives whole %d times", d, r, special, n, whole)
					}
				}
			}
		}
	}
}

func TestStats(t *testing.T) {
	in := conversationWith(t, true, allTools, user("Cancel the standup meeting on 2026-12-01"))
	var chunks int
	stats, err := New(Config{}).Stream(context.Background(), in, func(llm.Chunk) error {
		chunks++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.DoneReason != "stop" || stats.OutputTokens != chunks || chunks == 0 {
		t.Errorf("stats %+v after %d chunks", stats, chunks)
	}
	// A rough count: between one token per word and one per byte.
	if words := len(strings.Fields(in.Prompt)); stats.PromptTokens < words || stats.PromptTokens > len(in.Prompt) {
		t.Errorf("prompt tokens = %d for a prompt of %d words, %d bytes", stats.PromptTokens, words, len(in.Prompt))
	}
	if stats.TotalDuration <= 0 || stats.TotalDuration < stats.PromptDuration+stats.EvalDuration {
		t.Errorf("durations do not add up: %+v", stats)
	}
}

func TestCancel(t *testing.T) {
	in := conversationWith(t, true, allTools, user("Send an email to john@example.com about tomorrow's standup"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chunks int
	stats, err := New(Config{TokenDelay: 2 * time.Millisecond}).Stream(ctx, in, func(llm.Chunk) error {
		chunks++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || chunks != 1 || stats.OutputTokens != 1 {
		t.Errorf("err = %v after %d chunks (stats %d), want context.Canceled after 1", err, chunks, stats.OutputTokens)
	}
}

// A stream waiting out a long pause between tokens stops when ctx ends.
func TestCancelDuringPause(t *testing.T) {
	in := conversationWith(t, true, allTools, user("hello"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := New(Config{TokenDelay: time.Hour}).Stream(ctx, in, func(llm.Chunk) error {
			close(first) // a second chunk would panic here
			return nil
		})
		done <- err
	}()
	<-first
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream kept waiting after ctx was cancelled")
	}
}

func TestCallbackErrorStopsTheStream(t *testing.T) {
	in := conversationWith(t, true, allTools, user("hello"))
	stop := errors.New("viewer left")
	var chunks int
	stats, err := New(Config{}).Stream(context.Background(), in, func(llm.Chunk) error {
		chunks++
		if chunks == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || chunks != 3 || stats.OutputTokens != 3 || stats.DoneReason != "" {
		t.Errorf("err = %v after %d chunks (stats %+v), want %v after 3", err, chunks, stats, stop)
	}
}

func TestStreamNeedsAPrompt(t *testing.T) {
	_, err := New(Config{}).Stream(context.Background(), llm.Input{Mode: llm.ModeRaw}, func(llm.Chunk) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "Prepare") {
		t.Errorf("err = %v, want one that says to use Prepare", err)
	}
}

func TestPrepare(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: agent.SystemPrompt(offer(t, allTools...), streamparser.Hermes, testNow)}, user("hello")}
	off := false
	tests := []struct {
		name   string
		think  *bool
		suffix string
	}{
		{"thinks by default", nil, "hello /think<|im_end|>\n<|im_start|>assistant\n"},
		{"thinking off", &off, "hello /no_think<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := New(Config{}).Prepare(context.Background(), llm.Request{Messages: msgs, Think: tt.think})
			if err != nil {
				t.Fatal(err)
			}
			if in.Mode != llm.ModeRaw || in.Think != (tt.think == nil) || !strings.HasSuffix(in.Prompt, tt.suffix) || len(in.Messages) != 2 {
				t.Errorf("input %+v, want raw mode and a prompt ending in %q", in, tt.suffix)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Config{}).Prepare(ctx, llm.Request{Messages: msgs}); !errors.Is(err, context.Canceled) {
		t.Errorf("Prepare with a cancelled context: err = %v", err)
	}
}

func TestInfo(t *testing.T) {
	want := llm.Info{Backend: "demo", Model: "toolscope-demo", Mode: llm.ModeRaw, Demo: true}
	if got := New(Config{}).Info(); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
}
