package mcpbridge

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools/mcp"
)

const sessionHeader = "Mcp-Session-Id"

// serveStreamable serves streamable HTTP: a POST of initialize without a
// session opens one; every other request names its session, whose
// transport serves it, but DELETE, which ends it.
func (b *Bridge) serveStreamable(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodGet && r.Method != http.MethodDelete {
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed: streamable HTTP takes GET, POST and DELETE", http.StatusMethodNotAllowed)
		return
	}
	if problem, status := streamableProblem(r); problem != "" {
		http.Error(w, problem, status)
		return
	}
	id := r.Header.Get(sessionHeader)
	if id == "" {
		if r.Method != http.MethodPost {
			http.Error(w, fmt.Sprintf("Bad Request: %s needs the header %s of a session", r.Method, sessionHeader), http.StatusBadRequest)
			return
		}
		b.startStreamable(w, r)
		return
	}
	s := b.session(id)
	if s == nil {
		// 404 tells the client to initialize a new session.
		http.Error(w, "Not found: no such session; it ended, or the bridge restarted", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodDelete {
		s.end("the client ended it")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.serve(w, r)
}

// streamableProblem checks the headers the transport takes for granted:
// it answers a POST as JSON or an event stream, and a GET as a stream.
func streamableProblem(r *http.Request) (problem string, status int) {
	switch r.Method {
	case http.MethodPost:
		if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "application/json" {
			return "Unsupported Media Type: a POST carries JSON-RPC, as Content-Type: application/json", http.StatusUnsupportedMediaType
		}
		if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
			return "Bad Request: a POST must accept both application/json and text/event-stream", http.StatusBadRequest
		}
	case http.MethodGet:
		if !accepts(r, "text/event-stream") {
			return "Bad Request: a GET must accept text/event-stream", http.StatusBadRequest
		}
	}
	return "", 0
}

// accepts reports whether the request's Accept header takes mediaType,
// by name or by wildcard.
func accepts(r *http.Request, mediaType string) bool {
	kind, _, _ := strings.Cut(mediaType, "/")
	for _, value := range r.Header.Values("Accept") {
		for _, entry := range strings.Split(value, ",") {
			name, _, _ := strings.Cut(entry, ";")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case mediaType, kind + "/*", "*/*":
				return true
			}
		}
	}
	return false
}

// startStreamable opens a session for a POST of initialize.
func (b *Bridge) startStreamable(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("Request Entity Too Large: more than %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "Bad Request: the body could not be read", http.StatusBadRequest)
		return
	}
	if !isInitialize(body) {
		http.Error(w, fmt.Sprintf("Bad Request: a session begins with an initialize request; send every other with the header %s the answer gave", sessionHeader), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	id := rand.Text()
	transport := &sdk.StreamableServerTransport{SessionID: id, EventStore: b.events}
	conn, err := transport.Connect(r.Context())
	if err != nil {
		http.Error(w, "Internal Server Error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s, err := b.open(id, mcp.TransportHTTP, r, transport)
	if err != nil {
		conn.Close()
		http.Error(w, "Service Unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	s.connect(conn)
	s.serve(w, r)
}

func isInitialize(body []byte) bool {
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	return err == nil && ok && req.IsCall() && req.Method == "initialize"
}

// serveSSE serves the HTTP+SSE transport: a GET opens a session, whose
// event stream lasts as long as the session, and names the URL to POST
// its messages to.
func (b *Bridge) serveSSE(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		b.startSSE(w, r)
	case http.MethodPost:
		if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "application/json" {
			http.Error(w, "Unsupported Media Type: a POST carries JSON-RPC, as Content-Type: application/json", http.StatusUnsupportedMediaType)
			return
		}
		s := b.session(r.URL.Query().Get("sessionid"))
		if s == nil {
			http.Error(w, "Not found: no such session; it ended, or the bridge restarted", http.StatusNotFound)
			return
		}
		s.serve(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method Not Allowed: the SSE transport takes GET and POST", http.StatusMethodNotAllowed)
	}
}

func (b *Bridge) startSSE(w http.ResponseWriter, r *http.Request) {
	id := rand.Text()
	endpoint, err := r.URL.Parse("?sessionid=" + id)
	if err != nil {
		http.Error(w, "Internal Server Error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	transport := &sdk.SSEServerTransport{Endpoint: endpoint.RequestURI(), Response: w}
	s, err := b.open(id, mcp.TransportSSE, r, transport)
	if err != nil {
		http.Error(w, "Service Unavailable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	conn, err := transport.Connect(r.Context()) // writes the endpoint event
	if err != nil {
		s.end("the client is gone")
		return
	}
	if !s.connect(conn) {
		return // the bridge is closing
	}
	// The stream is the session: it is open, so never idle, until either
	// ends the other.
	s.enter()
	defer s.leave()
	select {
	case <-r.Context().Done():
		s.end("the client disconnected")
	case <-s.ended: // its connection is closed: nothing more is written to w
	}
}
