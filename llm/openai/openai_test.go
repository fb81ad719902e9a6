package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
)

var conversation = llm.Request{Messages: []llm.Message{
	{Role: llm.RoleSystem, Content: "Be brief."},
	{Role: llm.RoleUser, Content: "Mail john"},
}}

const mailCall = "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"john@example.com\"}}\n</tool_call>"

func newBackend(t *testing.T, cfg Config) *Backend {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// collect streams in and returns the pieces as they came.
func collect(t *testing.T, b *Backend, in llm.Input) ([]llm.Chunk, llm.Stats, error) {
	t.Helper()
	var chunks []llm.Chunk
	stats, err := b.Stream(context.Background(), in, func(c llm.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	return chunks, stats, err
}

func content(chunks []llm.Chunk) (text, thinking string, calls []llm.ToolCall) {
	for _, c := range chunks {
		text += c.Content
		thinking += c.Thinking
		calls = append(calls, c.ToolCalls...)
	}
	return text, thinking, calls
}

func TestRawModeSendsTheRenderedPromptAndStreamsRawText(t *testing.T) {
	reply := "<think>\nJohn is a contact.\n</think>\n\n" + mailCall
	for name, split := range map[string]func(string) []string{
		"tokens": nil, "every byte": llmtest.SplitEvery(1), "every 3 bytes": llmtest.SplitEvery(3),
	} {
		t.Run(name, func(t *testing.T) {
			server := openaitest.New(t)
			server.Reply(openaitest.Reply{Text: reply, Split: split})
			b := newBackend(t, Config{BaseURL: server.URL()}) // no model: the server's only one

			in, err := b.Prepare(context.Background(), conversation)
			if err != nil {
				t.Fatal(err)
			}
			if !in.Think || !strings.HasSuffix(in.Prompt, "Mail john /think<|im_end|>\n<|im_start|>assistant\n") {
				t.Fatalf("Qwen3 thinks by default and its prompt ends with the /think turn; got think=%v prompt %q", in.Think, in.Prompt)
			}
			chunks, stats, err := collect(t, b, in)
			if err != nil {
				t.Fatal(err)
			}
			if text, _, _ := content(chunks); text != reply {
				t.Errorf("raw text\n got %q\nwant %q", text, reply)
			}
			reqs := server.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Path != "/v1/completions" || r.Model != openaitest.DefaultModel || r.Prompt != in.Prompt || !r.Stream || !r.IncludeUsage {
				t.Errorf("request %+v: want the exact prompt, streamed, with usage, to %s", r, openaitest.DefaultModel)
			}
			if r.MaxTokens != "null" || r.SkipSpecialTokens == nil || *r.SkipSpecialTokens || !slices.Contains(r.Stop, "<|im_end|>") {
				t.Errorf("max_tokens %s, skip_special_tokens %v, stop %q: want null, false, and the end of a turn", r.MaxTokens, r.SkipSpecialTokens, r.Stop)
			}
			if stats.DoneReason != "stop" || stats.PromptTokens == 0 || stats.OutputTokens != len(chunks) {
				t.Errorf("stats %+v: want stop, the usage chunk's counts (%d output)", stats, len(chunks))
			}
			if stats.EvalDuration < 0 || stats.TotalDuration < stats.PromptDuration+stats.EvalDuration {
				t.Errorf("durations %+v do not add up", stats)
			}
			info := b.Info()
			if info.Backend != "openai" || info.Model != openaitest.DefaultModel || info.Template != "qwen3" || info.Mode != llm.ModeRaw {
				t.Errorf("Info %+v", info)
			}
		})
	}
}

func TestRawModeLengthIsTheDoneReason(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: "cut short", FinishReason: "length"})
	b := newBackend(t, Config{BaseURL: server.URL(), Model: openaitest.DefaultModel, Template: "qwen3"})
	_, stats, err := collect(t, b, llm.Input{Mode: llm.ModeRaw, Prompt: "p"})
	if err != nil || stats.DoneReason != "length" {
		t.Fatalf("stats %+v, err %v: want done reason length", stats, err)
	}
}

func TestChatModeMarksWhatTheServerParsed(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			server := openaitest.New(t)
			calls := []llm.ToolCall{
				{Name: "send_mail", Arguments: json.RawMessage(`{"to": "john@example.com", "subject": "Hi"}`)},
				{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)},
			}
			server.Reply(openaitest.Reply{Thinking: "John is a contact.", ThinkingField: field, Text: "Sending.", ToolCalls: calls, Split: llmtest.SplitEvery(2)})
			b := newBackend(t, Config{BaseURL: server.URL(), Mode: llm.ModeChat})

			in, err := b.Prepare(context.Background(), conversation)
			if err != nil {
				t.Fatal(err)
			}
			if in.Prompt != "" || len(in.Messages) != 2 {
				t.Fatalf("chat input %+v: want the messages and no prompt", in)
			}
			chunks, stats, err := collect(t, b, in)
			if err != nil {
				t.Fatal(err)
			}
			text, thinking, got := content(chunks)
			if text != "Sending." || thinking != "John is a contact." {
				t.Errorf("text %q, thinking %q", text, thinking)
			}
			if len(got) != 2 || got[0].Name != "send_mail" || got[1].Name != "get_weather" {
				t.Fatalf("tool calls %+v: want both, whole, in order", got)
			}
			for i, c := range got {
				var a, w map[string]any
				if json.Unmarshal(c.Arguments, &a) != nil || json.Unmarshal(calls[i].Arguments, &w) != nil || len(a) != len(w) {
					t.Errorf("call %d arguments %s, want %s", i, c.Arguments, calls[i].Arguments)
				}
			}
			if stats.DoneReason != "tool_calls" {
				t.Errorf("done reason %q", stats.DoneReason)
			}
			r := server.Requests()[0]
			if r.Path != "/v1/chat/completions" || r.Tools != 0 || len(r.Messages) != 2 || r.Messages[1].Content != "Mail john" {
				t.Errorf("request %+v: want the messages and no tools", r)
			}
			if r.EnableThinking == nil || !*r.EnableThinking {
				t.Errorf("enable_thinking %v: want true, Qwen3's default", r.EnableThinking)
			}
		})
	}
}

func TestToolCallArgumentsThatAreNotJSONAreKeptAsText(t *testing.T) {
	got := rawArguments([]byte(`{"to": "jo`))
	var s string
	if json.Unmarshal(got, &s) != nil || s != `{"to": "jo` {
		t.Fatalf("got %s: want the fragment as a JSON string", got)
	}
}

func TestThinkingForcedOffAndOn(t *testing.T) {
	server := openaitest.New(t)
	server.SetModels("meta-llama/Llama-3.1-8B-Instruct")
	b := newBackend(t, Config{BaseURL: server.URL()})
	in, err := b.Prepare(context.Background(), conversation)
	if err != nil || in.Think {
		t.Fatalf("Llama 3 does not think by default: %+v %v", in, err)
	}
	yes := true
	_, err = b.Prepare(context.Background(), llm.Request{Messages: conversation.Messages, Think: &yes})
	var le *llm.Error
	if !errors.As(err, &le) || le.Fix == nil || le.Fix.Setting != llm.SettingThink {
		t.Fatalf("thinking asked of Llama 3: %v, want an error whose fix is think=false", err)
	}
}

func TestCancellationReachesTheServer(t *testing.T) {
	server := openaitest.New(t)
	ended := make(chan struct{})
	server.Reply(openaitest.Reply{Text: "one two three", Hold: true, Ended: ended})
	b := newBackend(t, Config{BaseURL: server.URL(), Template: "qwen3"})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := b.Stream(ctx, llm.Input{Mode: llm.ModeRaw, Prompt: "p"}, func(c llm.Chunk) error {
		if strings.Contains(c.Content, "three") {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	<-ended // the server saw the request end; a hang here fails the test by timeout
}

func TestCallbackErrorStopsTheServer(t *testing.T) {
	server := openaitest.New(t)
	ended := make(chan struct{})
	server.Reply(openaitest.Reply{Text: "one two", Hold: true, Ended: ended})
	b := newBackend(t, Config{BaseURL: server.URL(), Mode: llm.ModeChat})
	stop := errors.New("enough")
	_, err := b.Stream(context.Background(), llm.Input{Mode: llm.ModeChat, Messages: conversation.Messages}, func(llm.Chunk) error { return stop })
	if err != stop {
		t.Fatalf("err %v, want fn's own error", err)
	}
	<-ended
}

func TestErrorsSayWhatToDo(t *testing.T) {
	raw := llm.Input{Mode: llm.ModeRaw, Prompt: strings.Repeat("word ", 50)}
	cases := []struct {
		name    string
		set     func(*openaitest.Server, *Config)
		problem string
		setting llm.Setting
	}{
		{"wrong key", func(s *openaitest.Server, c *Config) { s.RequireKey("sk-right"); c.APIKey = "sk-wrong" }, "401", SettingAPIKey},
		{"no key", func(s *openaitest.Server, c *Config) { s.RequireKey("sk-right") }, "API key was refused", SettingAPIKey},
		{"unknown model", func(s *openaitest.Server, c *Config) { c.Model = "Qwen/Qwen3-8B" }, `does not serve model "Qwen/Qwen3-8B"; it serves Qwen/Qwen3-4B`, llm.SettingModel},
		{"context", func(s *openaitest.Server, c *Config) { s.SetMaxModelLen(10) }, "no longer fits the model's context", ""},
		{"cut stream", func(s *openaitest.Server, c *Config) { s.Reply(openaitest.Reply{Text: "a b c d", CutAfter: 2}) }, "ended before it was done", ""},
		{"failed mid-reply", func(s *openaitest.Server, c *Config) {
			s.Reply(openaitest.Reply{Text: "a b", Error: "CUDA out of memory"})
		}, "CUDA out of memory", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			server := openaitest.New(t)
			cfg := Config{BaseURL: server.URL(), Model: openaitest.DefaultModel, Template: "qwen3"}
			c.set(server, &cfg)
			_, _, err := collect(t, newBackend(t, cfg), raw)
			var le *llm.Error
			if !errors.As(err, &le) || le.Op != "stream" || !strings.Contains(le.Problem, c.problem) || le.Fix == nil || le.Fix.Setting != c.setting {
				t.Fatalf("err %#v: want a stream error saying %q, fixed by setting %q", err, c.problem, c.setting)
			}
		})
	}
}

func TestRightKeyIsSent(t *testing.T) {
	server := openaitest.New(t)
	server.RequireKey("sk-right")
	server.Reply(openaitest.Reply{Text: "hi"})
	b := newBackend(t, Config{BaseURL: server.URL(), APIKey: "sk-right", Template: "qwen3"})
	if _, _, err := collect(t, b, llm.Input{Mode: llm.ModeRaw, Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	if got := server.Requests()[0].Authorization; got != "Bearer sk-right" {
		t.Fatalf("Authorization %q", got)
	}
}

func TestUnreachableServerNamesTheCommand(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	b := newBackend(t, Config{BaseURL: "http://" + addr})
	_, err = b.Check(context.Background())
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(le.Problem, "http://"+addr+"/v1") || le.Fix == nil ||
		!strings.Contains(le.Fix.Do, "vllm serve Qwen/Qwen3-4B") || le.Fix.Setting != SettingBaseURL {
		t.Fatalf("err %#v: want the base URL, the command to start a server and the base URL setting", err)
	}
}

func TestModelLeftToTheServer(t *testing.T) {
	server := openaitest.New(t)
	server.SetModels("a", "b")
	b := newBackend(t, Config{BaseURL: server.URL()})
	if _, err := b.Prepare(context.Background(), conversation); err == nil || !strings.Contains(err.Error(), "serves 2 models: a, b") {
		t.Fatalf("err %v: want the served models listed", err)
	}
	models, err := b.Models(context.Background())
	if err != nil || !slices.Equal(models, []string{"a", "b"}) {
		t.Fatalf("Models %v, %v", models, err)
	}
	server.SetModels()
	if _, err := b.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "serves no model") {
		t.Fatalf("Check with no model served: %v", err)
	}
	server.SetModels("a")
	if v, err := b.Check(context.Background()); err != nil || v != APIVersion {
		t.Fatalf("Check with one model: %q, %v", v, err)
	}
}

func TestUnknownFamilyNeedsATemplateInRawModeOnly(t *testing.T) {
	server := openaitest.New(t)
	server.SetModels("google/gemma-3-4b-it")
	_, err := newBackend(t, Config{BaseURL: server.URL()}).Prepare(context.Background(), conversation)
	var le *llm.Error
	if !errors.As(err, &le) || le.Fix == nil || le.Fix.Setting != SettingTemplate {
		t.Fatalf("err %v: want a fix naming the template setting", err)
	}
	if _, err := newBackend(t, Config{BaseURL: server.URL(), Mode: llm.ModeChat}).Prepare(context.Background(), conversation); err != nil {
		t.Fatalf("chat mode needs no template: %v", err)
	}
}

// A model name toolscope has no template for may just be a typo: the
// server is asked first, so the error names the models it does serve
// instead of asking for a template.
func TestUnservedModelIsNotReportedAsAMissingTemplate(t *testing.T) {
	server := openaitest.New(t)
	_, err := newBackend(t, Config{BaseURL: server.URL(), Model: "nope"}).Prepare(context.Background(), conversation)
	var le *llm.Error
	if !errors.As(err, &le) || !strings.Contains(le.Problem, `does not serve model "nope"; it serves `+openaitest.DefaultModel) ||
		le.Fix == nil || le.Fix.Setting != llm.SettingModel {
		t.Fatalf("err %v: want the served models named and the model setting to fix", err)
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{BaseURL: "localhost:8000"},
		{BaseURL: "ftp://host/v1"},
		{BaseURL: "http://127.0.0.1:8000", Template: "no-such-template"},
		{BaseURL: "http://127.0.0.1:8000", Mode: "stream"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestParseBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":     "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/":    "http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/v1/": "http://127.0.0.1:8000/v1",
		"https://host/openai/v1":    "https://host/openai/v1",
	} {
		if got, err := ParseBaseURL(in); err != nil || got != want {
			t.Errorf("ParseBaseURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// vLLM before 0.10 sent errors bare, {"object": "error", …}; the SDK alone
// would lose the status and the message.
func TestBareErrorBodiesKeepTheirMeaning(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"object": "error", "message": "This model's maximum context length is 8 tokens. However, you requested 20 tokens.", "type": "BadRequestError", "param": null, "code": 400}`)
	}))
	defer srv.Close()
	b := newBackend(t, Config{BaseURL: srv.URL, Model: "m", Template: "qwen3"})
	_, _, err := collect(t, b, llm.Input{Mode: llm.ModeRaw, Prompt: "p"})
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request: This model's maximum context length is 8 tokens") || !strings.Contains(err.Error(), "no longer fits") {
		t.Fatalf("err %v", err)
	}
}
