// Package ollamatest runs an in-process Ollama for tests. It speaks Ollama's
// HTTP API on a loopback port — NDJSON streaming on /api/generate,
// /api/chat and /api/pull, plus /api/show, /api/tags and /api/version — so
// code under test talks to it through Ollama's real client. Each generate
// or chat request is answered with the next scripted Reply, each pull as
// the model's scripted Pull says, and every request is recorded.
package ollamatest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	ollamamodel "github.com/ollama/ollama/types/model"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/template"
)

// Version is what /api/version reports: the Ollama whose API this mimics.
const Version = "0.17.4"

// Model is a model the server knows, as /api/show describes it.
type Model struct {
	Template     string
	Capabilities []string // e.g. "completion", "tools", "thinking"
	// Renderer and Parser name the Go code Ollama uses instead of Template
	// to build prompts and read replies, for models that have them.
	Renderer, Parser string
	Family           string
}

// Reply scripts the answer to one generate or chat request.
type Reply struct {
	// Text is the raw content, streamed in pieces: `response` on
	// /api/generate, `message.content` on /api/chat.
	Text string
	// Split cuts Text and Thinking into pieces, one line each. nil cuts
	// like a real server: token-sized pieces that keep tags such as
	// <tool_call> and UTF-8 characters whole.
	Split func(string) []string
	// Thinking is streamed before Text as `thinking` (generate) or
	// `message.thinking` (chat), as Ollama's own parser would send it.
	Thinking string
	// ToolCalls are sent, on chat only, in one `message.tool_calls` line
	// after the pieces, as Ollama's own parser would. Each Arguments must
	// be a JSON object.
	ToolCalls []llm.ToolCall
	// DoneReason goes on the done line; "" means "stop".
	DoneReason string
	// Status, when non-zero, answers with this HTTP status and the body
	// {"error": Error} instead of streaming. With Status zero, a non-empty
	// Error ends the stream with an {"error": Error} line in place of the
	// done line, as Ollama does when its runner fails mid-reply.
	Status int
	Error  string
	// CutAfter > 0 ends the response without a done line after at most
	// this many lines, as when a server dies or a connection drops.
	CutAfter int
	// RepeatGuard stops the reply as Ollama 0.17.4 stops a model that
	// loops: once one piece, spaces trimmed, would come more than
	// RepeatLimit times in a row, the response ends before it, with no
	// done line and no error.
	RepeatGuard bool
	// Hold, after the pieces, sends nothing more and waits until the
	// request's context ends (the client gives up) or the test ends.
	Hold bool
	// Pace, when non-zero, is the wait between pieces, as a model takes
	// its time per token; benchmarks use it so that pieces do not queue.
	Pace time.Duration
	// Sent, if non-nil, is called with a piece's index just before the
	// piece leaves the server, so that a test can time its delivery.
	Sent func(piece int)
	// Ended, if non-nil, is closed when the request's context ends, which
	// lets a test see a cancellation reach the server. Give each Reply its
	// own channel.
	Ended chan struct{}
}

// Request is a generate or chat request the server received.
type Request struct {
	Path     string // "/api/generate" or "/api/chat"
	Model    string
	Prompt   string
	Raw      bool
	Think    *api.ThinkValue
	Messages []api.Message
	Tools    int // number of tools sent: toolscope must always send 0
	// Truncate and Shift are what the request asked of a prompt or a reply
	// longer than the context; nil when it did not say.
	Truncate, Shift *bool
	// Options are the request's model options as JSON decodes them
	// (numbers as float64); nil when it sent none.
	Options map[string]any
}

// Server is an in-process Ollama speaking its NDJSON streaming protocol.
// Its methods are safe for concurrent use.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	closed chan struct{} // closed when the test ends, releasing held replies

	mu       sync.Mutex
	models   map[string]Model
	replies  []queued
	requests []Request
	pulls    map[string]Pull
	pulled   []string // the models asked for on /api/pull, in order
}

// queued is a Reply with its tool calls already in Ollama's wire form, so
// that a malformed one fails the test where it was queued.
type queued struct {
	Reply
	calls []api.ToolCall
}

// New starts a Server on 127.0.0.1 at a free port and closes it when the
// test ends. It knows one model from the start, "qwen3:4b", with Ollama's
// qwen3 template and the capabilities completion, tools and thinking.
func New(t testing.TB) *Server {
	s := &Server{
		t:      t,
		closed: make(chan struct{}),
		models: map[string]Model{"qwen3:4b": qwen3()},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/generate", s.serveReply)
	mux.HandleFunc("POST /api/chat", s.serveReply)
	mux.HandleFunc("POST /api/show", s.show)
	mux.HandleFunc("GET /api/tags", s.tags)
	mux.HandleFunc("POST /api/pull", s.pull)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.closed)
		s.srv.Close()
	})
	return s
}

// qwen3 is a Qwen3 model as Ollama describes qwen3:4b.
func qwen3() Model {
	return Model{Template: template.Qwen3, Capabilities: []string{"completion", "tools", "thinking"}, Family: "qwen3"}
}

// URL is the server's base URL, "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.srv.URL }

// Host is the server's "127.0.0.1:PORT", the form OLLAMA_HOST takes.
func (s *Server) Host() string { return s.srv.Listener.Addr().String() }

// AddModel adds or replaces a model.
func (s *Server) AddModel(name string, m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models[name] = m
}

// RemoveModel forgets a model, as if it had never been pulled.
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, name)
}

// Reply queues replies. Each generate or chat request for a known model
// takes the next one, first in first out; with none queued, the server
// answers 500 {"error":"ollamatest: no reply queued"}.
func (s *Server) Reply(r ...Reply) {
	s.t.Helper()
	q := make([]queued, len(r))
	for i, rep := range r {
		calls, err := toolCalls(rep.ToolCalls)
		if err != nil {
			s.t.Fatalf("ollamatest: Reply: %v", err)
		}
		q[i] = queued{Reply: rep, calls: calls}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, q...)
}

// Requests returns every generate and chat request received so far, in
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func toolCalls(calls []llm.ToolCall) ([]api.ToolCall, error) {
	out := make([]api.ToolCall, len(calls))
	for i, c := range calls {
		args := api.NewToolCallFunctionArguments()
		if err := args.UnmarshalJSON(c.Arguments); err != nil {
			return nil, fmt.Errorf("ToolCalls[%d].Arguments is not a JSON object: %w", i, err)
		}
		out[i] = api.ToolCall{Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}}
	}
	return out, nil
}

// take records a request and picks its reply. A request for an unknown
// model takes none: Ollama refuses it before generating anything.
func (s *Server) take(req Request) (q queued, status int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if _, ok := s.models[req.Model]; !ok {
		return q, http.StatusNotFound, notFound(req.Model)
	}
	if len(s.replies) == 0 {
		return q, http.StatusInternalServerError, "ollamatest: no reply queued"
	}
	q, s.replies = s.replies[0], s.replies[1:]
	return q, http.StatusOK, ""
}

func (s *Server) serveReply(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string            `json:"model"`
		Prompt   string            `json:"prompt"`
		Raw      bool              `json:"raw"`
		Think    *api.ThinkValue   `json:"think"`
		Messages []api.Message     `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
		Truncate *bool             `json:"truncate"`
		Shift    *bool             `json:"shift"`
		Options  map[string]any    `json:"options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q, status, msg := s.take(Request{
		Path:     r.URL.Path,
		Model:    body.Model,
		Prompt:   body.Prompt,
		Raw:      body.Raw,
		Think:    body.Think,
		Messages: body.Messages,
		Tools:    len(body.Tools),
		Truncate: body.Truncate,
		Shift:    body.Shift,
		Options:  body.Options,
	})
	if status != http.StatusOK {
		writeError(w, status, msg)
		return
	}
	if q.Ended != nil {
		context.AfterFunc(r.Context(), func() { close(q.Ended) })
	}
	if q.Status != 0 {
		writeError(w, q.Status, q.Error)
		return
	}

	prompt := body.Prompt
	for _, m := range body.Messages {
		prompt += m.Role + "\n" + m.Content + "\n"
	}
	st := stream{rc: http.NewResponseController(w), enc: json.NewEncoder(w), model: body.Model, chat: r.URL.Path == "/api/chat"}
	lines := st.pieces(q)
	cutAfter := q.CutAfter
	if n, looped := repeatCut(q.texts()); q.RepeatGuard && looped && (cutAfter == 0 || n < cutAfter) {
		cutAfter = n
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	for i, l := range lines {
		if cutAfter > 0 && i == cutAfter {
			return
		}
		if i > 0 && q.Pace > 0 {
			select {
			case <-time.After(q.Pace):
			case <-r.Context().Done():
				return
			}
		}
		if q.Sent != nil {
			q.Sent(i)
		}
		if st.send(l) != nil {
			return // the client is gone
		}
	}
	switch {
	case cutAfter > 0:
		// a cut reply has no done line
	case q.Hold:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
	case q.Error != "":
		_ = st.send(map[string]string{"error": q.Error})
	default:
		_ = st.send(st.done(cmp.Or(q.DoneReason, "stop"), metrics(len(llmtest.SplitTokens(prompt)), len(lines))))
	}
}

// stream writes one reply, a line at a time.
type stream struct {
	rc    *http.ResponseController
	enc   *json.Encoder
	model string
	chat  bool
}

// send writes a line and flushes it so the client reads it now.
func (st stream) send(line any) error {
	if err := st.enc.Encode(line); err != nil {
		return err
	}
	return st.rc.Flush()
}

// split cuts s into the reply's pieces.
func (r Reply) split(s string) []string {
	if r.Split == nil {
		return llmtest.SplitTokens(s)
	}
	return r.Split(s)
}

// texts are the reply's pieces, a line each: thinking, then content.
func (r Reply) texts() []string {
	return append(r.split(r.Thinking), r.split(r.Text)...)
}

// RepeatLimit is how many times in a row Ollama 0.17.4 lets a model
// repeat one piece, as its llm/server.go counts: "30 picked as an
// arbitrary max token repeat limit".
const RepeatLimit = 30

// repeatCut reports whether Ollama's repeat guard would stop a reply
// streamed as pieces, and after how many of them. Ollama compares each
// piece, spaces trimmed, with the one before (the first with ""), and
// ends the prediction before sending the piece that repeats it more
// than RepeatLimit times.
func repeatCut(pieces []string) (sent int, looped bool) {
	var last string
	repeats := 0
	for i, p := range pieces {
		if t := strings.TrimSpace(p); t == last {
			repeats++
		} else {
			last, repeats = t, 0
		}
		if repeats > RepeatLimit {
			return i, true
		}
	}
	return len(pieces), false
}

// pieces builds the lines before the done line: thinking, then content,
// then (chat only) the tool calls.
func (st stream) pieces(q queued) []any {
	var lines []any
	for _, p := range q.split(q.Thinking) {
		lines = append(lines, st.line(api.Message{Thinking: p}))
	}
	for _, p := range q.split(q.Text) {
		lines = append(lines, st.line(api.Message{Content: p}))
	}
	if st.chat && len(q.calls) > 0 {
		lines = append(lines, st.line(api.Message{ToolCalls: q.calls}))
	}
	return lines
}

// line is one streamed line in the endpoint's shape.
func (st stream) line(m api.Message) any {
	now := time.Now().UTC()
	if st.chat {
		m.Role = "assistant"
		return api.ChatResponse{Model: st.model, CreatedAt: now, Message: m}
	}
	return api.GenerateResponse{Model: st.model, CreatedAt: now, Response: m.Content, Thinking: m.Thinking}
}

func (st stream) done(reason string, m api.Metrics) any {
	now := time.Now().UTC()
	if st.chat {
		return api.ChatResponse{Model: st.model, CreatedAt: now, Message: api.Message{Role: "assistant"}, Done: true, DoneReason: reason, Metrics: m}
	}
	return api.GenerateResponse{Model: st.model, CreatedAt: now, Done: true, DoneReason: reason, Metrics: m}
}

// metrics makes plausible counters without taking the time they describe:
// a small model on a laptop CPU, 40 tokens a second.
func metrics(promptTokens, pieces int) api.Metrics {
	promptTokens, pieces = max(promptTokens, 1), max(pieces, 1) // a model reads and writes at least a token
	m := api.Metrics{
		LoadDuration:       15 * time.Millisecond,
		PromptEvalCount:    promptTokens,
		PromptEvalDuration: time.Duration(promptTokens) * 2 * time.Millisecond,
		EvalCount:          pieces,
		EvalDuration:       time.Duration(pieces) * 25 * time.Millisecond,
	}
	m.TotalDuration = m.LoadDuration + m.PromptEvalDuration + m.EvalDuration
	return m
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model string `json:"model"`
		Name  string `json:"name"` // older clients
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := cmp.Or(body.Model, body.Name)
	s.mu.Lock()
	m, ok := s.models[name]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, notFound(name))
		return
	}
	caps := make([]ollamamodel.Capability, len(m.Capabilities))
	for i, c := range m.Capabilities {
		caps[i] = ollamamodel.Capability(c)
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Template:     m.Template,
		Renderer:     m.Renderer,
		Parser:       m.Parser,
		Details:      api.ModelDetails{Family: m.Family, Format: "gguf"},
		Capabilities: caps,
	})
}

func (s *Server) tags(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var list api.ListResponse
	for name, m := range s.models {
		list.Models = append(list.Models, api.ListModelResponse{
			Name:    name,
			Model:   name,
			Details: api.ModelDetails{Family: m.Family, Format: "gguf"},
		})
	}
	s.mu.Unlock()
	slices.SortFunc(list.Models, func(a, b api.ListModelResponse) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, http.StatusOK, list)
}

// notFound is Ollama's own wording.
func notFound(model string) string { return fmt.Sprintf("model '%s' not found", model) }

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
