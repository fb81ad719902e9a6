// Package openaitest runs an in-process OpenAI-compatible server for tests
// that behaves like vLLM: /v1/models, and /v1/completions and
// /v1/chat/completions streamed as Server-Sent Events (`data:` chunks,
// `reasoning_content` deltas, tool-call fragments, a usage chunk, then
// `data: [DONE]`) or answered whole. Code under test talks to it through
// the official openai-go client. Each completion request is answered with
// the next scripted Reply, and every request is recorded.
package openaitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
)

// DefaultModel is the model a new Server serves.
const DefaultModel = "Qwen/Qwen3-4B"

// Reply scripts the answer to one completion or chat request.
type Reply struct {
	// Text is the reply's text: `text` on /v1/completions,
	// `delta.content` on chat.
	Text string
	// Thinking is streamed first, on chat only, as a reasoning parser
	// sends it: `delta.reasoning_content`, or the field ThinkingField
	// names (vLLM 0.10 and later say "reasoning").
	Thinking      string
	ThinkingField string
	// ToolCalls are sent, on chat only, after the text as a tool-call
	// parser sends them: a delta with the index, id and name, then the
	// arguments in pieces cut by Split.
	ToolCalls []llm.ToolCall
	// Split cuts Text, Thinking and arguments into pieces, one chunk each.
	// nil cuts like a real server: token-sized pieces that keep tags such
	// as <tool_call> whole. llmtest.SplitEvery cuts where no real
	// server does, through tags and words.
	Split func(string) []string
	// FinishReason goes on the last choice; "" means "stop", or
	// "tool_calls" when there are ToolCalls.
	FinishReason string
	// Status, when non-zero, answers with this HTTP status and an OpenAI
	// error body {"error": {"message": Error, …}} instead of a reply. With
	// Status zero, a non-empty Error ends the stream with an error event,
	// as vLLM does when generation fails mid-reply.
	Status int
	Error  string
	// CutAfter > 0 ends the response after at most this many chunks,
	// with no finish_reason and no [DONE], as when a server dies.
	CutAfter int
	// Hold, after the pieces, sends nothing more and waits until the
	// request's context ends (the client gives up) or the test ends.
	Hold bool
	// Ended, if non-nil, is closed when the request's context ends, which
	// lets a test see a cancellation reach the server.
	Ended chan struct{}
}

// Request is a completion or chat request the server received.
type Request struct {
	Path     string // "/v1/completions" or "/v1/chat/completions"
	Model    string
	Prompt   string
	Messages []llm.Message
	Stream   bool
	// IncludeUsage is stream_options.include_usage.
	IncludeUsage bool
	// MaxTokens is max_tokens as sent: "" when absent, "null", or a number.
	MaxTokens string
	Stop      []string
	// Temperature, TopP and Seed are as sent; nil when absent.
	Temperature, TopP *float64
	Seed              *int64
	// SkipSpecialTokens is vLLM's skip_special_tokens; nil when not sent.
	SkipSpecialTokens *bool
	// EnableThinking is chat_template_kwargs.enable_thinking; nil when not
	// sent.
	EnableThinking *bool
	Tools          int    // number of tools sent: toolscope must always send 0
	Authorization  string // the header as sent
}

// Server is an in-process OpenAI-compatible server. Its methods are safe
// for concurrent use.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	closed chan struct{} // closed when the test ends, releasing held replies

	mu          sync.Mutex
	models      []string
	key         string
	maxModelLen int
	replies     []Reply
	requests    []Request
}

// New starts a Server on 127.0.0.1 at a free port, serving DefaultModel
// with no API key and a context of 40960 tokens, and closes it when the
// test ends.
func New(t testing.TB) *Server {
	s := &Server{t: t, closed: make(chan struct{}), models: []string{DefaultModel}, maxModelLen: 40960}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", s.authorized(s.listModels))
	mux.HandleFunc("POST /v1/completions", s.authorized(s.serveReply))
	mux.HandleFunc("POST /v1/chat/completions", s.authorized(s.serveReply))
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.closed)
		s.srv.Close()
	})
	return s
}

// URL is the API's base URL, "http://127.0.0.1:PORT/v1", as OpenAI clients
// take it.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// SetModels replaces the served models.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.Clone(ids)
}

// RequireKey makes every request need "Authorization: Bearer key", as
// `vllm serve --api-key key` does; "" needs none.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SetMaxModelLen sets the context, in tokens: a longer prompt gets vLLM's
// 400 "maximum context length" error.
func (s *Server) SetMaxModelLen(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxModelLen = n
}

// Reply queues replies. Each completion or chat request for a served model
// takes the next one, first in first out; with none queued, the server
// answers 500.
func (s *Server) Reply(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, r...)
}

// Requests returns every completion and chat request received so far, in
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// authorized answers 401 as vLLM does, with {"error": "Unauthorized"},
// when a key is required and not given.
func (s *Server) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		key := s.key
		s.mu.Unlock()
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		h(w, r)
	}
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := make([]map[string]any, len(s.models))
	for i, id := range s.models {
		data[i] = map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "vllm", "root": id, "max_model_len": s.maxModelLen}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// take records a request and picks its reply, or the error vLLM would
// answer before generating anything.
func (s *Server) take(req Request) (Reply, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if !slices.Contains(s.models, req.Model) {
		return Reply{}, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model)
	}
	if n := len(llmtest.SplitTokens(req.Prompt + messagesText(req.Messages))); n > s.maxModelLen {
		return Reply{}, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.", s.maxModelLen, n)
	}
	if len(s.replies) == 0 {
		return Reply{}, http.StatusInternalServerError, "openaitest: no reply queued"
	}
	q := s.replies[0]
	s.replies = s.replies[1:]
	return q, http.StatusOK, ""
}

func messagesText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role + "\n" + m.Content + "\n")
	}
	return b.String()
}

func (s *Server) serveReply(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q, status, msg := s.take(req)
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
	reply := newReplyWriter(req, q)
	if !req.Stream {
		writeJSON(w, http.StatusOK, reply.whole())
		return
	}
	s.stream(w, r, reply, q)
}

// stream writes the reply's chunks as Server-Sent Events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, reply *replyWriter, q Reply) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		return rc.Flush()
	}
	for i, c := range reply.chunks() {
		if q.CutAfter > 0 && i == q.CutAfter {
			return
		}
		if send(c) != nil {
			return // the client is gone
		}
	}
	switch {
	case q.CutAfter > 0:
		return
	case q.Hold:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	case q.Error != "":
		_ = send(map[string]any{"error": errorBody(http.StatusInternalServerError, q.Error)})
		return
	}
	_ = send(reply.finish())
	if reply.req.IncludeUsage {
		_ = send(reply.usageChunk())
	}
	_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

// readRequest decodes a request body into what tests look at.
func readRequest(r *http.Request) (Request, error) {
	var body struct {
		Model    string        `json:"model"`
		Prompt   string        `json:"prompt"`
		Messages []llm.Message `json:"messages"`
		Stream   bool          `json:"stream"`
		Options  struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Max    json.RawMessage `json:"max_tokens"`
		Stop   json.RawMessage `json:"stop"`
		Temp   *float64        `json:"temperature"`
		TopP   *float64        `json:"top_p"`
		Seed   *int64          `json:"seed"`
		Skip   *bool           `json:"skip_special_tokens"`
		Kwargs struct {
			EnableThinking *bool `json:"enable_thinking"`
		} `json:"chat_template_kwargs"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return Request{}, err
	}
	var stop []string
	if json.Unmarshal(body.Stop, &stop) != nil {
		var one string
		if json.Unmarshal(body.Stop, &one) == nil {
			stop = []string{one}
		}
	}
	return Request{
		Path: r.URL.Path, Model: body.Model, Prompt: body.Prompt, Messages: body.Messages,
		Stream: body.Stream, IncludeUsage: body.Options.IncludeUsage, MaxTokens: string(body.Max), Stop: stop,
		Temperature: body.Temp, TopP: body.TopP, Seed: body.Seed,
		SkipSpecialTokens: body.Skip, EnableThinking: body.Kwargs.EnableThinking, Tools: len(body.Tools),
		Authorization: r.Header.Get("Authorization"),
	}, nil
}

// errorBody is vLLM's error object: the status as the code.
func errorBody(status int, msg string) map[string]any {
	typ := strings.ReplaceAll(http.StatusText(status), " ", "") + "Error"
	return map[string]any{"message": msg, "type": typ, "param": nil, "code": status}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": errorBody(status, msg)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
