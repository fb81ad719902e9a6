package ollamatest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/llm/template"
)

// post sends body to path and returns the response, closed at test end.
func post(t *testing.T, ctx context.Context, s *ollamatest.Server, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// lines decodes every NDJSON line of a response.
func lines[T any](t *testing.T, resp *http.Response) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func errorBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	var e struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	return e.Error
}

func TestGenerateStreamsPiecesThenDone(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "Hi <tool_call>", Thinking: "ok", DoneReason: "length"})

	resp := post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b","prompt":"say hi","raw":true,"think":false}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q, want application/x-ndjson", ct)
	}
	got := lines[api.GenerateResponse](t, resp)
	var pieces []string
	for _, l := range got[:len(got)-1] {
		if l.Done {
			t.Errorf("done line %+v before the end", l)
		}
		pieces = append(pieces, l.Thinking+"|"+l.Response)
	}
	if wantPieces := []string{"ok|", "|Hi", "| <tool_call>"}; !slices.Equal(pieces, wantPieces) {
		t.Errorf("pieces (thinking|response) = %q, want %q", pieces, wantPieces)
	}
	done := got[len(got)-1]
	if !done.Done || done.DoneReason != "length" || done.Model != "qwen3:4b" {
		t.Errorf("done line = %+v, want done, reason length, model qwen3:4b", done)
	}
	m := done.Metrics
	if m.EvalCount != 3 || m.PromptEvalCount < 1 || m.LoadDuration <= 0 || m.PromptEvalDuration <= 0 || m.EvalDuration <= 0 || m.TotalDuration != m.LoadDuration+m.PromptEvalDuration+m.EvalDuration {
		t.Errorf("counters = %+v, want eval_count 3 and positive durations adding up", m)
	}
}

func TestChatSendsMessageFieldsAndToolCalls(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{
		Text:      "a b",
		Thinking:  "hm",
		Split:     llmtest.SplitEvery(10),
		ToolCalls: []llm.ToolCall{{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris","days":2}`)}},
	})
	resp := post(t, t.Context(), s, "/api/chat", `{"model":"qwen3:4b","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function"}]}`)
	got := lines[api.ChatResponse](t, resp)
	if len(got) != 4 {
		t.Fatalf("got %d lines, want thinking, content, tool calls, done: %+v", len(got), got)
	}
	if got[0].Message.Thinking != "hm" || got[1].Message.Content != "a b" || got[1].Message.Role != "assistant" {
		t.Errorf("pieces = %+v, %+v", got[0].Message, got[1].Message)
	}
	calls := got[2].Message.ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "get_weather" || calls[0].Function.Arguments.String() != `{"city":"Paris","days":2}` {
		t.Errorf("tool calls = %+v", calls)
	}
	if !got[3].Done || got[3].DoneReason != "stop" {
		t.Errorf("last line = %+v, want done with reason stop", got[3])
	}

	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/api/chat" || reqs[0].Tools != 1 || len(reqs[0].Messages) != 1 || reqs[0].Messages[0].Content != "hi" {
		t.Errorf("Requests() = %+v, want the chat request with 1 tool and 1 message", reqs)
	}
}

func TestGenerateLeavesOutToolCalls(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "x", ToolCalls: []llm.ToolCall{{Name: "f", Arguments: json.RawMessage(`{}`)}}})
	resp := post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b","prompt":"p"}`)
	for _, l := range lines[api.GenerateResponse](t, resp) {
		if len(l.ToolCalls) > 0 {
			t.Errorf("generate line has tool calls: %+v", l)
		}
	}
}

func TestErrorsAnswerLikeOllama(t *testing.T) {
	tests := []struct {
		name       string
		reply      *ollamatest.Reply
		path, body string
		status     int
		msg        string
	}{
		{"unknown model on generate", &ollamatest.Reply{Text: "unused"}, "/api/generate", `{"model":"nope"}`, 404, "model 'nope' not found"},
		{"unknown model on chat", nil, "/api/chat", `{"model":"nope"}`, 404, "model 'nope' not found"},
		{"unknown model on show", nil, "/api/show", `{"model":"nope"}`, 404, "model 'nope' not found"},
		{"nothing queued", nil, "/api/generate", `{"model":"qwen3:4b"}`, 500, "ollamatest: no reply queued"},
		{"scripted status", &ollamatest.Reply{Status: 503, Error: "busy"}, "/api/chat", `{"model":"qwen3:4b"}`, 503, "busy"},
		{"bad JSON", nil, "/api/generate", `{`, 400, "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t)
			if tt.reply != nil {
				s.Reply(*tt.reply)
			}
			resp := post(t, t.Context(), s, tt.path, tt.body)
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.status)
			}
			if msg := errorBody(t, resp); msg != tt.msg {
				t.Errorf("error = %q, want %q", msg, tt.msg)
			}
		})
	}
}

// A request for an unknown model must not use up the reply meant for the
// next one.
func TestUnknownModelKeepsReplyQueued(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "kept"})
	post(t, t.Context(), s, "/api/generate", `{"model":"nope"}`)
	got := lines[api.GenerateResponse](t, post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b"}`))
	if len(got) == 0 || got[0].Response != "kept" {
		t.Errorf("second request got %+v, want the queued reply", got)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want 2", n)
	}
}

func TestRepliesAreFIFO(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "one"}, ollamatest.Reply{Text: "two"})
	s.Reply(ollamatest.Reply{Text: "three"})
	for _, want := range []string{"one", "two", "three"} {
		got := lines[api.ChatResponse](t, post(t, t.Context(), s, "/api/chat", `{"model":"qwen3:4b"}`))
		if got[0].Message.Content != want {
			t.Errorf("got %q, want %q", got[0].Message.Content, want)
		}
	}
}

func TestStreamEndings(t *testing.T) {
	tests := []struct {
		name  string
		reply ollamatest.Reply
		want  []string // response or error of each line; "done" for the done line
	}{
		{"cut", ollamatest.Reply{Text: "a b c", CutAfter: 2}, []string{"a", " b"}},
		{"cut after everything", ollamatest.Reply{Text: "a", CutAfter: 5}, []string{"a"}},
		{"error line", ollamatest.Reply{Text: "a", Error: "runner crashed"}, []string{"a", "error: runner crashed"}},
		{"empty text", ollamatest.Reply{}, []string{"done"}},
		// Ollama sends a piece and 30 repeats of it, then stops.
		{"repeat guard", ollamatest.Reply{Text: "a" + strings.Repeat(" b", 40), RepeatGuard: true}, append([]string{"a"}, slices.Repeat([]string{" b"}, 31)...)},
		{"repeats within the guard", ollamatest.Reply{Text: strings.Repeat(" b", 31), RepeatGuard: true}, append(slices.Repeat([]string{" b"}, 31), "done")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.Reply(tt.reply)
			var got []string
			for _, l := range lines[struct {
				api.GenerateResponse
				Error string
			}](t, post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b"}`)) {
				switch {
				case l.Error != "":
					got = append(got, "error: "+l.Error)
				case l.Done:
					got = append(got, "done")
				default:
					got = append(got, l.Response)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

// A held reply must reach the client line by line (the server flushes) and
// end only when the client goes away, which Ended reports.
func TestHoldFlushesAndWaitsForClient(t *testing.T) {
	s := ollamatest.New(t)
	ended := make(chan struct{})
	s.Reply(ollamatest.Reply{Text: "first", Hold: true, Ended: ended})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := post(t, ctx, s, "/api/generate", `{"model":"qwen3:4b"}`)
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("read the first line while the server holds: %v", err)
	}
	if !bytes.Contains(line, []byte(`"response":"first"`)) {
		t.Errorf("first line = %s", line)
	}
	select {
	case <-ended:
		t.Fatal("Ended closed while the client was still reading")
	default:
	}
	cancel()
	select {
	case <-ended:
	case <-time.After(10 * time.Second): // a guard against hanging, not a timing assertion
		t.Fatal("Ended not closed after the client canceled")
	}
}

func TestShowTagsVersion(t *testing.T) {
	s := ollamatest.New(t)
	s.AddModel("coder:30b", ollamatest.Model{Renderer: "qwen3-coder", Parser: "qwen3-coder", Capabilities: []string{"completion", "tools"}, Family: "qwen3moe"})
	c := api.NewClient(mustURL(t, s.URL()), http.DefaultClient)

	show, err := c.Show(t.Context(), &api.ShowRequest{Model: "coder:30b"})
	if err != nil {
		t.Fatal(err)
	}
	if show.Renderer != "qwen3-coder" || show.Parser != "qwen3-coder" || show.Details.Family != "qwen3moe" || len(show.Capabilities) != 2 || show.Capabilities[1] != "tools" {
		t.Errorf("show = %+v", show)
	}
	show, err = c.Show(t.Context(), &api.ShowRequest{Model: "qwen3:4b"})
	if err != nil {
		t.Fatal(err)
	}
	if show.Template != template.Qwen3 || !slices.Contains(show.Capabilities, "thinking") {
		t.Errorf("default model: template %d bytes, capabilities %v", len(show.Template), show.Capabilities)
	}

	list, err := c.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if want := []string{"coder:30b", "qwen3:4b"}; !slices.Equal(names, want) {
		t.Errorf("tags = %q, want %q", names, want)
	}

	v, err := c.Version(t.Context())
	if err != nil || v != "0.17.4" {
		t.Errorf("Version() = %q, %v; want 0.17.4", v, err)
	}
}

func TestHost(t *testing.T) {
	s := ollamatest.New(t)
	if !strings.HasPrefix(s.Host(), "127.0.0.1:") || s.URL() != "http://"+s.Host() {
		t.Errorf("Host() = %q, URL() = %q", s.Host(), s.URL())
	}
	resp, err := http.Get(s.URL() + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); !bytes.Contains(b, []byte(`"version":"0.17.4"`)) {
		t.Errorf("/api/version = %s", b)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// JSON cannot carry half a character, so a cut one reaches any client as
// replacement characters, as SplitEvery documents.
func TestCutCharactersArriveReplaced(t *testing.T) {
	s := ollamatest.New(t)
	s.Reply(ollamatest.Reply{Text: "é", Split: llmtest.SplitEvery(1)})
	var got []string
	for _, l := range lines[api.GenerateResponse](t, post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b"}`)) {
		if !l.Done {
			got = append(got, l.Response)
		}
	}
	if want := []string{"\uFFFD", "\uFFFD"}; !slices.Equal(got, want) {
		t.Errorf("pieces = %q, want %q", got, want)
	}
}

// Sent is called for each piece before the client can read it, so that a
// benchmark can time a piece from the moment it left.
func TestSentPrecedesEachPiece(t *testing.T) {
	s := ollamatest.New(t)
	sent := make(chan int, 3)
	s.Reply(ollamatest.Reply{Text: "a b c", Split: func(string) []string { return []string{"a", "b", "c"} },
		Pace: time.Microsecond, Sent: func(i int) { sent <- i }})
	resp := post(t, t.Context(), s, "/api/generate", `{"model":"qwen3:4b"}`)
	r := bufio.NewReader(resp.Body)
	for want := range 3 {
		if _, err := r.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-sent:
			if got != want {
				t.Fatalf("Sent(%d) before piece %d", got, want)
			}
		default:
			t.Fatalf("piece %d arrived before Sent was called for it", want)
		}
	}
}

// A pull streams what Ollama 0.17.4 streams, and then the model is
// listed; a model the registry lacks fails after "pulling manifest", in a
// 200 response, as Ollama's does.
func TestPullStreamsOllamasLines(t *testing.T) {
	s := ollamatest.New(t)
	s.RemoveModel("qwen3:4b")
	s.AddPull("qwen3:4b", ollamatest.Pull{Layers: []int64{90, 9}, Steps: 3})

	got := lines[api.ProgressResponse](t, post(t, t.Context(), s, "/api/pull", `{"model":"qwen3:4b"}`))
	var statuses []string
	for _, l := range got {
		statuses = append(statuses, l.Status)
		if l.Digest != "" && (!strings.HasPrefix(l.Digest, "sha256:") || len(l.Digest) != 71 || l.Status != "pulling "+l.Digest[7:19]) {
			t.Errorf("layer line %+v is not in Ollama's form", l)
		}
	}
	if want := 1 + 2*3 + 3; len(got) != want || statuses[0] != "pulling manifest" || !slices.Equal(statuses[len(statuses)-3:], []string{"verifying sha256 digest", "writing manifest", "success"}) {
		t.Errorf("statuses = %q, want pulling manifest, 3 lines for each of 2 layers, verifying, writing, success", statuses)
	}
	if first := got[1]; first.Completed != 0 || first.Total != 90 {
		t.Errorf("a layer's first line = %+v, want nothing of 90 bytes done", first)
	}
	list, err := api.NewClient(mustURL(t, s.URL()), http.DefaultClient).List(t.Context())
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != "qwen3:4b" {
		t.Errorf("/api/tags after the pull = %+v, %v; want qwen3:4b", list, err)
	}

	resp := post(t, t.Context(), s, "/api/pull", `{"model":"qwen9:1b"}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a pull of a model the registry lacks answers %d, want 200 (the error comes in the stream)", resp.StatusCode)
	}
	failed := lines[struct{ Status, Error string }](t, resp)
	if len(failed) != 2 || failed[0].Status != "pulling manifest" || failed[1].Error != ollamatest.NotInRegistry {
		t.Errorf("a pull of a model the registry lacks streams %+v, want pulling manifest then the error", failed)
	}
	if pulled := s.Pulled(); !slices.Equal(pulled, []string{"qwen3:4b", "qwen9:1b"}) {
		t.Errorf("Pulled() = %q", pulled)
	}
}
