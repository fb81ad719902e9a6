package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/renderers"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/llm/template"
)

var conversation = []llm.Message{
	{Role: llm.RoleSystem, Content: "You are terse."},
	{Role: llm.RoleUser, Content: "What is 2+2?"},
	{Role: llm.RoleAssistant, Content: "4", Thinking: "Simple sum."},
	{Role: llm.RoleUser, Content: "And 3+3?"},
}

func newBackend(t *testing.T, s *ollamatest.Server, cfg ollama.Config) *ollama.Backend {
	t.Helper()
	cfg.Host = s.Host()
	b, err := ollama.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reply is everything Stream delivered.
type reply struct {
	chunks    []llm.Chunk
	content   string
	thinking  string
	toolCalls []llm.ToolCall
	stats     llm.Stats
	err       error
}

func stream(ctx context.Context, b *ollama.Backend, in llm.Input) reply {
	var r reply
	r.stats, r.err = b.Stream(ctx, in, func(c llm.Chunk) error {
		r.chunks = append(r.chunks, c)
		r.content += c.Content
		r.thinking += c.Thinking
		r.toolCalls = append(r.toolCalls, c.ToolCalls...)
		return nil
	})
	return r
}

func prepare(t *testing.T, b *ollama.Backend, think *bool) llm.Input {
	t.Helper()
	in, err := b.Prepare(t.Context(), llm.Request{Messages: conversation, Think: think})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestRawMode(t *testing.T) {
	s := ollamatest.New(t)
	const text = "<think>\nAdd them.\n</think>\n\nLet me check. <tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 3, \"b\": 3}}\n</tool_call>"
	s.Reply(ollamatest.Reply{Text: text})
	b := newBackend(t, s, ollama.Config{})

	in := prepare(t, b, nil)
	want, err := template.Render(template.Qwen3, conversation, true)
	if err != nil {
		t.Fatal(err)
	}
	if in.Mode != llm.ModeRaw || !in.Think || in.Prompt != want || !slices.Equal(in.Messages, conversation) {
		t.Errorf("Prepare = %+v\nwant raw mode, thinking, prompt %q", in, want)
	}

	r := stream(t.Context(), b, in)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.content != text || r.thinking != "" || r.toolCalls != nil {
		t.Errorf("content %q, thinking %q, tool calls %v; want the raw text as content only", r.content, r.thinking, r.toolCalls)
	}
	if len(r.chunks) < 10 {
		t.Errorf("got %d chunks, want the reply streamed in token-sized pieces", len(r.chunks))
	}

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Path != "/api/generate" || got.Model != "qwen3:4b" || !got.Raw || got.Prompt != in.Prompt {
		t.Errorf("request = %+v, want raw generate of the prepared prompt", got)
	}
	if !got.Think.IsBool() || got.Think.Bool() {
		t.Errorf("request think = %v, want false so that Ollama's parsers stay out", got.Think)
	}
}

func TestChatMode(t *testing.T) {
	s := ollamatest.New(t)
	calls := []llm.ToolCall{{Name: "add", Arguments: json.RawMessage(`{"a":3,"b":3}`)}}
	s.Reply(ollamatest.Reply{Thinking: "Ollama parsed this thinking.", Text: "Calling add.", ToolCalls: calls})
	b := newBackend(t, s, ollama.Config{Mode: llm.ModeChat})

	in := prepare(t, b, nil)
	if in.Mode != llm.ModeChat || !in.Think || in.Prompt != "" || !slices.Equal(in.Messages, conversation) {
		t.Errorf("Prepare = %+v, want chat mode, thinking, the messages and no prompt", in)
	}

	r := stream(t.Context(), b, in)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.thinking != "Ollama parsed this thinking." || r.content != "Calling add." {
		t.Errorf("thinking %q, content %q", r.thinking, r.content)
	}
	if len(r.toolCalls) != 1 || r.toolCalls[0].Name != "add" || string(r.toolCalls[0].Arguments) != `{"a":3,"b":3}` {
		t.Errorf("tool calls = %s, want add {\"a\":3,\"b\":3}", r.toolCalls)
	}

	got := s.Requests()[0]
	if got.Path != "/api/chat" || got.Tools != 0 || got.Raw || !got.Think.Bool() {
		t.Errorf("request = %+v, want chat with no tools and think true", got)
	}
	var sent []llm.Message
	for _, m := range got.Messages {
		sent = append(sent, llm.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking})
	}
	if !slices.Equal(sent, conversation) {
		t.Errorf("messages sent = %+v, want %+v", sent, conversation)
	}
}

func TestThinkingDecision(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		thinking bool // the model can think
		ask      *bool
		want     bool
		cannot   bool // Prepare fails: the model cannot think as asked
	}{
		{"auto on a thinking model", true, nil, true, false},
		{"auto on another model", false, nil, false, false},
		{"off on a thinking model", true, &no, false, false},
		{"off on another model", false, &no, false, false},
		{"on on a thinking model", true, &yes, true, false},
		{"on on another model", false, &yes, false, true},
	}
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				s := ollamatest.New(t)
				m := ollamatest.Model{Template: template.Qwen3, Capabilities: []string{"completion"}}
				if tt.thinking {
					m.Capabilities = append(m.Capabilities, "thinking")
				}
				s.AddModel("m", m)
				b := newBackend(t, s, ollama.Config{Model: "m", Mode: mode})

				in, err := b.Prepare(t.Context(), llm.Request{Messages: conversation, Think: tt.ask})
				if tt.cannot {
					wantError(t, err, "prepare", `model "m" cannot think`,
						&llm.Fix{Do: "pick a thinking model such as qwen3", Setting: llm.SettingThink, Value: "false"})
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if in.Think != tt.want {
					t.Errorf("Think = %v, want %v", in.Think, tt.want)
				}
				if mode == llm.ModeRaw {
					want, _ := template.Render(template.Qwen3, conversation, tt.want)
					if in.Prompt != want {
						t.Errorf("prompt = %q, want %q", in.Prompt, want)
					}
				}
			})
		}
	}
}

func TestRendererModel(t *testing.T) {
	s := ollamatest.New(t)
	s.AddModel("qwen3-coder:30b", ollamatest.Model{
		Template:     "{{ .Prompt }}", // what Ollama reports for renderer models; must not be used
		Renderer:     "qwen3-coder",
		Parser:       "qwen3-coder",
		Capabilities: []string{"completion", "tools"},
	})
	b := newBackend(t, s, ollama.Config{Model: "qwen3-coder:30b"})
	in := prepare(t, b, nil)

	msgs := make([]api.Message, len(conversation))
	for i, m := range conversation {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking}
	}
	want, err := renderers.RenderWithRenderer("qwen3-coder", msgs, nil, &api.ThinkValue{Value: false})
	if err != nil {
		t.Fatal(err)
	}
	if in.Prompt != want || in.Think {
		t.Errorf("Prepare = %+v\nwant no thinking and prompt %q", in, want)
	}
}

func TestPrepareErrors(t *testing.T) {
	tests := []struct {
		name  string
		model ollamatest.Model
		want  string
	}{
		{"unknown renderer", ollamatest.Model{Renderer: "from-the-future"}, `render the prompt for "m" with Ollama's "from-the-future" renderer: unknown renderer "from-the-future" (this toolscope may predate the renderer)`},
		{"no template", ollamatest.Model{}, `model "m" has neither a template nor a renderer, so its raw prompt is unknown`},
		{"broken template", ollamatest.Model{Template: "{{ .Nope"}, `render the prompt for "m" with its template: parse the model's template`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.AddModel("m", tt.model)
			_, err := newBackend(t, s, ollama.Config{Model: "m"}).Prepare(t.Context(), llm.Request{Messages: conversation})
			wantError(t, err, "prepare", tt.want, &llm.Fix{Setting: llm.SettingMode, Value: "chat"})
		})
	}
}

// /api/show is asked once per Backend, but a failed answer is not kept.
func TestShowIsCachedButFailuresAreNot(t *testing.T) {
	s := ollamatest.New(t)
	b := newBackend(t, s, ollama.Config{Model: "late:1b"})
	if _, err := b.Prepare(t.Context(), llm.Request{Messages: conversation}); err == nil {
		t.Fatal("Prepare succeeded for a model the server does not have")
	}

	s.AddModel("late:1b", ollamatest.Model{Template: template.Qwen3, Capabilities: []string{"completion", "thinking"}})
	if in := prepare(t, b, nil); !in.Think {
		t.Fatal("Prepare after the pull: no thinking, want the model's capabilities read")
	}

	s.AddModel("late:1b", ollamatest.Model{Template: template.Qwen3, Capabilities: []string{"completion"}})
	if in := prepare(t, b, nil); !in.Think {
		t.Error("Prepare asked /api/show again: a changed model changed the answer")
	}
}

func TestModelNotPulled(t *testing.T) {
	const problem = `model "ghost:7b" is not pulled`
	fix := &llm.Fix{Do: "run 'ollama pull ghost:7b'", Setting: llm.SettingModel}
	s := ollamatest.New(t)
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		b := newBackend(t, s, ollama.Config{Model: "ghost:7b", Mode: mode})
		_, err := b.Prepare(t.Context(), llm.Request{Messages: conversation})
		wantError(t, err, "prepare", problem, fix)

		r := stream(t.Context(), b, llm.Input{Mode: mode, Messages: conversation, Prompt: "hi"})
		wantError(t, r.err, "stream", problem, fix)
		var status api.StatusError
		if !errors.As(r.err, &status) || status.StatusCode != 404 {
			t.Errorf("%s Stream error %v does not wrap Ollama's 404", mode, r.err)
		}
	}
}

func TestServerErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply ollamatest.Reply
		want  string
	}{
		{"500", ollamatest.Reply{Status: 500, Error: "llama runner process has terminated"}, "Ollama answered 500 Internal Server Error: llama runner process has terminated"},
		{"400", ollamatest.Reply{Status: 400, Error: "invalid options"}, "Ollama answered 400 Bad Request: invalid options"},
		{"error line mid-reply", ollamatest.Reply{Text: "Hello", Error: "model runner crashed"}, "Ollama at http://" /* …host… */},
		{"cut mid-reply", ollamatest.Reply{Text: "Hello there, friend", CutAfter: 2}, "Ollama's reply ended before it was done (no done line): the server may have stopped or the connection was cut"},
	}
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				s := ollamatest.New(t)
				s.Reply(tt.reply)
				b := newBackend(t, s, ollama.Config{Mode: mode})
				r := stream(t.Context(), b, llm.Input{Mode: mode, Messages: conversation, Prompt: "hi"})
				if r.err == nil || !strings.HasPrefix(r.err.Error(), tt.want) {
					t.Errorf("error = %v, want %q", r.err, tt.want)
				}
				if tt.reply.Error != "" && !strings.Contains(r.err.Error(), tt.reply.Error) {
					t.Errorf("error %q does not carry the server's message %q", r.err, tt.reply.Error)
				}
				if r.stats != (llm.Stats{}) {
					t.Errorf("stats = %+v on failure, want none", r.stats)
				}
			})
		}
	}
}

func TestCutStreamDeliversWhatArrived(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "one two three", CutAfter: 2})
	r := stream(t.Context(), newBackend(t, s, ollama.Config{}), llm.Input{Mode: llm.ModeRaw, Prompt: "count"})
	if r.err == nil || r.content != "one two" {
		t.Errorf("content %q, error %v; want the two lines sent and an error", r.content, r.err)
	}
}

// Ollama stops a model that writes one token over and over, ending the
// stream as a cut connection does: no done line, HTTP 200. The server is
// fine, so the error says the model looped and what helps, not that the
// connection was cut; a stream cut after fewer repeats is still a cut.
func TestRepeatGuardIsNotACutConnection(t *testing.T) {
	tests := []struct {
		name  string
		reply ollamatest.Reply
		want  string // the reply as far as it came
		fix   bool   // the error is the repeat guard's, with its fix
	}{
		{"in the reply", ollamatest.Reply{Text: "The answer is" + strings.Repeat(" the", 60), RepeatGuard: true},
			"The answer is" + strings.Repeat(" the", ollamatest.RepeatLimit+1), true},
		// Blank lines, each a token, as a model that loops on them sends them.
		{"blank, in thinking", ollamatest.Reply{Thinking: "Hmm." + strings.Repeat("\n\n", 45), Split: llmtest.SplitEvery(2), RepeatGuard: true},
			"Hmm." + strings.Repeat("\n\n", ollamatest.RepeatLimit+1), true},
		{"cut before the limit", ollamatest.Reply{Text: strings.Repeat(" the", ollamatest.RepeatLimit-1) + " end", CutAfter: ollamatest.RepeatLimit - 1},
			strings.Repeat(" the", ollamatest.RepeatLimit-1), false},
	}
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				s := ollamatest.New(t)
				s.Reply(tt.reply)
				r := stream(t.Context(), newBackend(t, s, ollama.Config{Mode: mode}), llm.Input{Mode: mode, Messages: conversation, Prompt: "hi"})
				if got := r.thinking + r.content; got != tt.want {
					t.Errorf("reply %q, want %q: what came before the stop", got, tt.want)
				}
				var e *llm.Error
				looped := errors.As(r.err, &e) && strings.Contains(e.Problem, "the model repeated itself") && strings.Contains(e.Problem, "Ollama stopped the reply")
				if looped != tt.fix {
					t.Fatalf("error = %v; repeat guard's: %v, want %v", r.err, looped, tt.fix)
				}
				if !tt.fix {
					return
				}
				if e.Fix == nil || !strings.Contains(e.Fix.Do, "repeat_penalty") || e.Fix.Setting != llm.SettingModel || strings.Contains(e.Error(), "connection") {
					t.Errorf("error %q, fix %+v: want what helps, and no word of a cut connection", e.Problem, e.Fix)
				}
			})
		}
	}
}

func TestUnreachable(t *testing.T) {
	addr := nettest.ClosedAddress(t)
	b, err := ollama.New(ollama.Config{Host: addr})
	if err != nil {
		t.Fatal(err)
	}
	problem := "Ollama is not reachable at http://" + addr + " ("
	fix := &llm.Fix{Do: "start Ollama with 'ollama serve'", Setting: llm.SettingBackend, Value: "demo"}
	_, prepErr := b.Prepare(t.Context(), llm.Request{Messages: conversation})
	_, versionErr := b.Version(t.Context())
	_, modelsErr := b.Models(t.Context())
	for _, c := range []struct {
		op  string
		err error
	}{
		{"prepare", prepErr},
		{"stream", stream(t.Context(), b, llm.Input{Mode: llm.ModeRaw, Prompt: "hi"}).err},
		{"check", versionErr},
		{"check", modelsErr},
	} {
		wantError(t, c.err, c.op, problem, fix)
	}
	var dial *net.OpError
	if !errors.As(prepErr, &dial) {
		t.Errorf("Prepare error %v does not wrap the dial error", prepErr)
	}
}

// waitEnded fails the test unless the server saw the request end.
func waitEnded(t *testing.T, ended chan struct{}) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing assertion
		t.Fatal("the server's request context never ended: Ollama would keep generating")
	}
}

func TestCancellationReachesServer(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		t.Run(string(mode), func(t *testing.T) {
			s := ollamatest.New(t)
			ended := make(chan struct{})
			s.Reply(ollamatest.Reply{Text: "Thinking about it", Hold: true, Ended: ended})
			b := newBackend(t, s, ollama.Config{Mode: mode})

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got string
			_, err := b.Stream(ctx, llm.Input{Mode: mode, Prompt: "p", Messages: conversation}, func(c llm.Chunk) error {
				got += c.Content
				if got == "Thinking about it" {
					cancel() // the user closed the tab
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", err)
			}
			waitEnded(t, ended)
		})
	}
}

func TestAlreadyCanceled(t *testing.T) {
	s := ollamatest.New(t)
	b := newBackend(t, s, ollama.Config{})
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := b.Prepare(ctx, llm.Request{Messages: conversation}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Prepare error = %v, want context.DeadlineExceeded", err)
	}
	if err := stream(ctx, b, llm.Input{Mode: llm.ModeRaw, Prompt: "p"}).err; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stream error = %v, want context.DeadlineExceeded", err)
	}
}

func TestCallbackErrorStopsStream(t *testing.T) {
	s := ollamatest.New(t)
	ended := make(chan struct{})
	s.Reply(ollamatest.Reply{Text: "one two three", Hold: true, Ended: ended})
	b := newBackend(t, s, ollama.Config{})

	stop := errors.New("page closed")
	calls := 0
	_, err := b.Stream(t.Context(), llm.Input{Mode: llm.ModeRaw, Prompt: "p"}, func(llm.Chunk) error {
		calls++
		return stop
	})
	if err != stop {
		t.Errorf("error = %v, want fn's error as it is", err)
	}
	if calls != 1 {
		t.Errorf("fn called %d times, want 1: the stream must stop at the first error", calls)
	}
	waitEnded(t, ended)
}

func TestStats(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeRaw, llm.ModeChat} {
		t.Run(string(mode), func(t *testing.T) {
			s := ollamatest.New(t)
			s.Reply(ollamatest.Reply{Text: "a b c d", DoneReason: "length"})
			r := stream(t.Context(), newBackend(t, s, ollama.Config{Mode: mode}), llm.Input{Mode: mode, Prompt: "count to four", Messages: conversation})
			if r.err != nil {
				t.Fatal(r.err)
			}
			st := r.stats
			if st.DoneReason != "length" || st.OutputTokens != 4 || st.PromptTokens < 1 {
				t.Errorf("stats = %+v, want reason length, 4 output tokens, some prompt tokens", st)
			}
			if st.LoadDuration <= 0 || st.PromptDuration <= 0 || st.EvalDuration <= 0 || st.TotalDuration < st.LoadDuration+st.PromptDuration+st.EvalDuration {
				t.Errorf("durations = %+v, want all filled", st)
			}
		})
	}
}

func TestPiecesConcatenate(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		split func(string) []string
	}{
		{"tags cut in 3-byte pieces", "Sure. <tool_call>\n{\"name\": \"f\"}\n</tool_call>", llmtest.SplitEvery(3)},
		{"one byte per line", "<think>\nok\n</think>", llmtest.SplitEvery(1)},
		{"multibyte text in tokens", "Grüße aus 東京 ✓ 👩‍💻 — fertig.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.Reply(ollamatest.Reply{Text: tt.text, Split: tt.split})
			r := stream(t.Context(), newBackend(t, s, ollama.Config{}), llm.Input{Mode: llm.ModeRaw, Prompt: "p"})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.content != tt.text {
				t.Errorf("content = %q, want %q", r.content, tt.text)
			}
			if tt.split != nil && len(r.chunks) != len(tt.split(tt.text)) {
				t.Errorf("got %d chunks, want one per line: %d", len(r.chunks), len(tt.split(tt.text)))
			}
		})
	}
}

func TestInfoVersionModels(t *testing.T) {
	s := ollamatest.New(t)
	s.AddModel("llama3.2:1b", ollamatest.Model{Template: "{{ .Prompt }}"})
	b := newBackend(t, s, ollama.Config{})

	if got, want := b.Info(), (llm.Info{Backend: "ollama", Model: "qwen3:4b", Mode: llm.ModeRaw}); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
	if got, want := b.BaseURL(), s.URL(); got != want {
		t.Errorf("BaseURL() = %q, want %q", got, want)
	}
	if v, err := b.Version(t.Context()); err != nil || v != "0.17.4" {
		t.Errorf("Version() = %q, %v; want 0.17.4", v, err)
	}
	models, err := b.Models(t.Context())
	if err != nil || !slices.Equal(models, []string{"llama3.2:1b", "qwen3:4b"}) {
		t.Errorf("Models() = %q, %v", models, err)
	}
}

func TestStreamRejectsUnknownMode(t *testing.T) {
	s := ollamatest.New(t)
	_, err := newBackend(t, s, ollama.Config{}).Stream(t.Context(), llm.Input{Mode: "native"}, func(llm.Chunk) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `"native"`) {
		t.Errorf("error = %v, want one naming the mode", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("server got %d requests, want none", n)
	}
}
