package mcpbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The transports as the MCP specification has them, streamable HTTP
// (2025-03-26 and later) and HTTP+SSE (2024-11-05), written as a
// pass-through: the package's doc says why not with the SDK's.

const sessionHeader = "Mcp-Session-Id"

// serveStreamable serves streamable HTTP: a POST of initialize without a
// session opens one; every other request names its session.
func (b *Bridge) serveStreamable(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		b.postStreamable(w, r)
	case http.MethodGet:
		b.getStreamable(w, r)
	case http.MethodDelete:
		if s := b.sessionOf(w, r); s != nil {
			s.end("the client ended it")
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed: streamable HTTP takes GET, POST and DELETE", http.StatusMethodNotAllowed)
	}
}

// sessionOf returns the streamable HTTP session a request names, or
// answers that there is none and returns nil.
func (b *Bridge) sessionOf(w http.ResponseWriter, r *http.Request) *session {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		http.Error(w, fmt.Sprintf("Bad Request: %s needs the header %s of a session", r.Method, sessionHeader), http.StatusBadRequest)
		return nil
	}
	s := b.session(id, mcp.TransportHTTP)
	if s == nil {
		noSession(w)
	}
	return s
}

// noSession answers a request for a session that is not there: 404 tells
// a streamable HTTP client to initialize a new one.
func noSession(w http.ResponseWriter) {
	http.Error(w, "Not found: no such session; it ended, or the bridge restarted", http.StatusNotFound)
}

// postStreamable passes the messages of a POST to the session's child.
// Requests are answered on an event stream, which carries their answers
// and their progress, and ends once every one is answered; notifications
// and responses alone get 202.
func (b *Bridge) postStreamable(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
		http.Error(w, "Bad Request: a POST must accept both application/json and text/event-stream", http.StatusBadRequest)
		return
	}
	msgs, ok := readMessages(w, r)
	if !ok {
		return
	}
	id := r.Header.Get(sessionHeader)
	var s *session
	if isStateless(r, msgs) {
		if !checkHeaders(w, r, msgs) {
			return
		}
		var err error
		if s, err = b.shared(r); err != nil {
			refuse(w, msgs, err)
			return
		}
	} else if id == "" {
		if len(msgs) != 1 || !isInitialize(msgs[0]) {
			http.Error(w, fmt.Sprintf("Bad Request: a session begins with an initialize request, alone; send every other with the header %s its answer gave", sessionHeader), http.StatusBadRequest)
			return
		}
		var err error
		if s, err = b.open(mcp.TransportHTTP, r); err != nil {
			refuse(w, msgs, err)
			return
		}
		w.Header().Set(sessionHeader, s.id)
	} else if s = b.session(id, mcp.TransportHTTP); s == nil {
		noSession(w)
		return
	}
	s.enter()
	defer s.leave()

	calls := 0
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			calls++
		}
	}
	if calls == 0 {
		s.fromClient(msgs, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newStream(calls)
	defer st.detach()
	if s.transport == transportStateless && answeredAlone(msgs[0]) {
		s.fromClient(msgs, st)
		answerPlain(r.Context(), s.ended, st, w)
		s.abandon(st)
		return
	}
	startEvents(w)
	s.fromClient(msgs, st)
	st.carry(r.Context(), s.ended, w)
	if s.transport == transportStateless {
		s.abandon(st)
	}
}

// getStreamable carries a session's standalone stream: what its child
// sends that is not tied to a request.
func (b *Bridge) getStreamable(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		http.Error(w, "Bad Request: a GET must accept text/event-stream", http.StatusBadRequest)
		return
	}
	s := b.sessionOf(w, r)
	if s == nil {
		return
	}
	if !s.standalone.attach() {
		http.Error(w, "Conflict: another request carries the session's stream", http.StatusConflict)
		return
	}
	defer s.standalone.detach()
	s.enter()
	defer s.leave()
	startEvents(w)
	s.standalone.carry(r.Context(), s.ended, w)
}

// serveSSE serves the HTTP+SSE transport: a GET opens a session and
// carries all it has to say, beginning with the URL to POST messages to;
// the session lasts as long as the GET.
func (b *Bridge) serveSSE(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		b.getSSE(w, r)
	case http.MethodPost:
		s := b.session(r.URL.Query().Get("sessionid"), mcp.TransportSSE)
		if s == nil {
			noSession(w)
			return
		}
		msgs, ok := readMessages(w, r)
		if !ok {
			return
		}
		s.enter()
		defer s.leave()
		s.fromClient(msgs, nil)
		w.WriteHeader(http.StatusAccepted)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method Not Allowed: the SSE transport takes GET and POST", http.StatusMethodNotAllowed)
	}
}

func (b *Bridge) getSSE(w http.ResponseWriter, r *http.Request) {
	s, err := b.open(mcp.TransportSSE, r)
	if err != nil {
		http.Error(w, "Service Unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	s.standalone.attach()
	s.enter()
	defer s.leave()
	startEvents(w)
	endpoint := r.URL.EscapedPath() + "?sessionid=" + s.id
	if writeEvent(w, http.NewResponseController(w), "endpoint", []byte(endpoint)) == nil {
		s.standalone.carry(r.Context(), s.ended, w)
	}
	s.end("the client disconnected") // unless it ended otherwise first
}

// refuse answers a POST that could not open a session (an initialize,
// or the first request of the shared session), 503 Service Unavailable,
// with a JSON-RPC error that says why, to its first request: clients
// show the error in the body, where they show a text body as a status.
func refuse(w http.ResponseWriter, msgs []jsonrpc.Message, why error) {
	var id jsonrpc.ID
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			id = req.ID
			break
		}
	}
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "toolscope mcp bridge: " + why.Error()}}
	data, _ := jsonrpc.EncodeMessage(resp) // an ID that was decoded, and a string: nothing that fails to encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(data) // a client gone needs no answer
}

// startEvents begins an event stream, at once: the client learns that
// its request arrived, and proxies that the response streams.
func startEvents(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
}

// readMessages reads a POST's JSON-RPC message, or batch of them.
func readMessages(w http.ResponseWriter, r *http.Request) ([]jsonrpc.Message, bool) {
	if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "application/json" {
		http.Error(w, "Unsupported Media Type: a POST carries JSON-RPC, as Content-Type: application/json", http.StatusUnsupportedMediaType)
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: more than %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "Bad Request: the body could not be read", http.StatusBadRequest)
		}
		return nil, false
	}
	msgs, err := decodeMessages(body)
	if err != nil {
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return msgs, true
}

// decodeMessages decodes one JSON-RPC message, or a batch of them.
func decodeMessages(body []byte) ([]jsonrpc.Message, error) {
	raws := []json.RawMessage{body}
	if trimmed := strings.TrimSpace(string(body)); strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal(body, &raws); err != nil || len(raws) == 0 {
			return nil, errors.New("not a batch of JSON-RPC messages")
		}
	}
	msgs := make([]jsonrpc.Message, len(raws))
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("not JSON-RPC: %v", err)
		}
		msgs[i] = msg
	}
	return msgs, nil
}

func isInitialize(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.IsCall() && req.Method == "initialize"
}

// accepts reports whether the request's Accept header takes mediaType,
// by name or by wildcard.
func accepts(r *http.Request, mediaType string) bool {
	kind, _, _ := strings.Cut(mediaType, "/")
	for _, value := range r.Header.Values("Accept") {
		for entry := range strings.SplitSeq(value, ",") {
			name, _, _ := strings.Cut(entry, ";")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case mediaType, kind + "/*", "*/*":
				return true
			}
		}
	}
	return false
}
