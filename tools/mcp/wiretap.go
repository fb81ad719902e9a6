package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/tools"
)

// The SDK hides the JSON-RPC messages it exchanges, and wrapping its
// Connection would cut the private hooks its HTTP transport depends on. So
// toolscope taps the bytes themselves, below the SDK: lines on a stdio
// server's pipes, request and response bodies on HTTP. The wiretap then
// hands each message that belongs to a tool call to that call's recorder,
// and keeps the tool schemas that tools/list responses carry.

// rpcMessage is one JSON-RPC message as it crossed the wire, with the few
// fields needed to tell which call it belongs to.
type rpcMessage struct {
	raw    json.RawMessage
	id     string // the raw JSON id of a request or response; "" for a notification
	method string // "" for a response
	token  string // the raw JSON progress token, of a tools/call or a progress notification
	cancel string // the raw JSON id a notifications/cancelled refers to
	// The trace context a tools/call carries in params._meta (see
	// traceCall), for its HTTP request's headers.
	traceparent, tracestate, baggage string
}

// parseMessages reads one JSON-RPC message, or a batch of them. It fails
// on anything else, such as a log line a server printed to stdout.
func parseMessages(raw []byte) ([]rpcMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(raw, &batch); err != nil || len(batch) == 0 {
			return nil, fmt.Errorf("not a JSON-RPC batch: %.80q", raw)
		}
		msgs := make([]rpcMessage, len(batch))
		for i, m := range batch {
			var err error
			if msgs[i], err = parseMessage(m); err != nil {
				return nil, err
			}
		}
		return msgs, nil
	}
	m, err := parseMessage(raw)
	if err != nil {
		return nil, err
	}
	return []rpcMessage{m}, nil
}

func parseMessage(raw []byte) (rpcMessage, error) {
	var wire struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil || wire.JSONRPC != "2.0" {
		return rpcMessage{}, fmt.Errorf("not a JSON-RPC message: %.80q", raw)
	}
	m := rpcMessage{raw: raw, id: string(wire.ID), method: wire.Method}
	// Params of other shapes are legal JSON-RPC, just not ones that concern
	// a tool call; a failed decode leaves the fields empty.
	var params struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Traceparent   string          `json:"traceparent"`
			Tracestate    string          `json:"tracestate"`
			Baggage       string          `json:"baggage"`
		} `json:"_meta"`
		ProgressToken json.RawMessage `json:"progressToken"`
		RequestID     json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(wire.Params, &params)
	switch m.method {
	case "tools/call":
		m.token = string(params.Meta.ProgressToken)
		m.traceparent, m.tracestate, m.baggage = params.Meta.Traceparent, params.Meta.Tracestate, params.Meta.Baggage
	case "notifications/progress":
		m.token = string(params.ProgressToken)
	case "notifications/cancelled":
		m.cancel = string(params.RequestID)
	}
	return m, nil
}

// maxMessageBytes bounds one message, as the SDK bounds it by default.
const maxMessageBytes = 16 << 20

// Directions of a tools.WireMessage.
const (
	sent     = "sent"
	received = "received"
)

// wiretap routes the messages of each tool call to the call's recorder.
// A call is known by the progress token its tools/call carries, which
// toolscope chooses, and from then on by the JSON-RPC id the SDK gave it.
// The wiretap also keeps the schemas of the tools the server lists.
type wiretap struct {
	schemas listedSchemas
	asks    elicitSchemas // the forms servers ask to have filled in (see asks.go)
	// protocol is the revision of MCP agreed on in the handshake, which
	// every message of a call is marked with.
	protocol atomic.Pointer[string]

	mu     sync.Mutex
	next   int
	tokens map[string]*tappedCall // by raw JSON progress token
	ids    map[string]*tappedCall // by raw JSON request id
}

type tappedCall struct {
	ctx       context.Context // carries the recorder
	token     string          // raw JSON
	id        string          // the raw JSON id of its tools/call, once sent; guarded by the wiretap's mu
	cancelled chan struct{}   // closed once a notifications/cancelled for the call is sent
}

// track starts routing the messages of a call made under ctx. The call
// must send token as its progress token, and call stop once it is over.
func (t *wiretap) track(ctx context.Context) (token string, c *tappedCall, stop func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	token = fmt.Sprintf("toolscope-%d", t.next)
	raw, _ := json.Marshal(token)
	c = &tappedCall{ctx: ctx, token: string(raw), cancelled: make(chan struct{})}
	if t.tokens == nil {
		t.tokens = make(map[string]*tappedCall)
		t.ids = make(map[string]*tappedCall)
	}
	t.tokens[c.token] = c
	return token, c, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.tokens, c.token)
		// The SDK may have resent the call under a new id, e.g. to answer
		// a server's question: forget them all.
		for id, owner := range t.ids {
			if owner == c {
				delete(t.ids, id)
			}
		}
	}
}

// requestID is the JSON-RPC id of c's tools/call as text, "" before it
// was sent.
func (t *wiretap) requestID(c *tappedCall) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.id == "" {
		return ""
	}
	return unquoteID(c.id)
}

// record passes the messages that belong to a tracked call to its
// recorder, and those that list tools to the schemas.
func (t *wiretap) record(direction string, msgs []rpcMessage) {
	for _, m := range msgs {
		t.schemas.observe(direction, m)
		t.asks.observe(direction, m)
		c, cancels := t.owner(direction, m)
		if c == nil {
			continue
		}
		var protocol string
		if p := t.protocol.Load(); p != nil {
			protocol = *p
		}
		tools.Record(c.ctx, tools.WireMessage{Direction: direction, Body: m.raw, Protocol: protocol})
		if cancels {
			close(c.cancelled)
		}
	}
}

// owner finds the call m belongs to, and whether m is the notice that
// cancels it.
func (t *wiretap) owner(direction string, m rpcMessage) (c *tappedCall, cancels bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case m.token != "":
		c = t.tokens[m.token]
		if c != nil && m.method == "tools/call" && direction == sent {
			t.ids[m.id] = c
			c.id = m.id
		}
	case m.cancel != "":
		c = t.ids[m.cancel]
		cancels = c != nil && direction == sent
		if cancels {
			delete(t.ids, m.cancel) // the call is over: a second notice finds nothing
		}
	case m.method == "" && m.id != "":
		c = t.ids[m.id]
	}
	return c, cancels
}

// teeWriter records each message written to a stdio server's stdin. The
// SDK writes one newline-terminated message per Write.
type teeWriter struct {
	w   io.WriteCloser
	tap *wiretap
}

func (w *teeWriter) Write(p []byte) (int, error) {
	// Record first: once the message is out, the reply can be read and
	// recorded before this Write returns, and the page would show the
	// response above its request.
	if msgs, err := parseMessages(p); err == nil {
		w.tap.record(sent, msgs)
	}
	return w.w.Write(p)
}

func (w *teeWriter) Close() error { return w.w.Close() }

// stdoutFilter reads a stdio server's stdout for the SDK. It passes on
// JSON-RPC messages, one per line, and records them (unless tap is nil);
// any other line is handed to stray instead. Servers that print banners
// or logs to stdout are common, and the SDK would drop the connection at
// the first one.
type stdoutFilter struct {
	r       *bufio.Reader
	c       io.Closer
	tap     *wiretap
	stray   func(line string)
	pending []byte // the rest of the message being passed on
	err     error  // the read error to report once pending is drained
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, truncated, err := readLine(f.r, maxMessageBytes)
		f.err = err
		if truncated {
			f.err = fmt.Errorf("the server wrote a line longer than %d MB to stdout", maxMessageBytes>>20)
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msgs, perr := parseMessages(line)
		if perr != nil {
			f.stray(strings.TrimRight(string(line), "\r\n"))
			continue
		}
		if f.tap != nil {
			f.tap.record(received, msgs)
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		f.pending = line
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *stdoutFilter) Close() error { return f.c.Close() }

// tapTransport is the HTTP transport of an HTTP MCP server: it adds the
// configured headers and records the JSON-RPC messages in request and
// response bodies.
type tapTransport struct {
	base    http.RoundTripper
	headers map[string]string
	tap     *wiretap
	failed  atomic.Int32 // the status of the last failed response, for explaining it
}

func (t *tapTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	if req.Body != nil && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			data, _ := io.ReadAll(body)
			body.Close()
			if msgs, err := parseMessages(data); err == nil {
				t.tap.record(sent, msgs)
				traceHeaders(req.Header, msgs)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		t.failed.Store(int32(resp.StatusCode))
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		resp.Body = &jsonBodyTee{body: resp.Body, tap: t.tap}
	case "text/event-stream":
		resp.Body = &eventStreamTee{body: resp.Body, tap: t.tap}
	}
	return resp, nil
}

func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// jsonBodyTee records a JSON response body once it has been read whole.
// A body past maxMessageBytes is passed on but not recorded, so a server
// cannot make the tap hold more than one message's worth.
type jsonBodyTee struct {
	body     io.ReadCloser
	tap      *wiretap
	buf      []byte
	tooLarge bool
}

func (b *jsonBodyTee) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if !b.tooLarge {
		b.buf = append(b.buf, p[:n]...)
		if len(b.buf) > maxMessageBytes {
			b.buf, b.tooLarge = nil, true
		}
	}
	if err == io.EOF && !b.tooLarge {
		if msgs, perr := parseMessages(b.buf); perr == nil {
			b.tap.record(received, msgs)
		}
		b.buf = nil
	}
	return n, err
}

func (b *jsonBodyTee) Close() error { return b.body.Close() }

// eventStreamTee records the JSON-RPC message in each server-sent event
// of a response, as the events stream past.
type eventStreamTee struct {
	body    io.ReadCloser
	tap     *wiretap
	partial []byte          // an incomplete line
	data    strings.Builder // the data lines of the current event
}

func (e *eventStreamTee) Read(p []byte) (int, error) {
	n, err := e.body.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if len(e.partial)+len(chunk) <= maxMessageBytes {
				e.partial = append(e.partial, chunk...)
			}
			break
		}
		e.line(string(append(e.partial, chunk[:i]...)))
		e.partial = e.partial[:0]
		chunk = chunk[i+1:]
	}
	if err == io.EOF {
		// The SDK takes the last event of a stream that ends without the
		// blank line after it: so must the tap, before the SDK sees EOF.
		if len(e.partial) > 0 {
			e.line(string(e.partial))
			e.partial = e.partial[:0]
		}
		e.line("")
	}
	return n, err
}

func (e *eventStreamTee) line(l string) {
	l = strings.TrimSuffix(l, "\r")
	switch {
	case l == "":
		if msgs, err := parseMessages([]byte(e.data.String())); err == nil {
			e.tap.record(received, msgs)
		}
		e.data.Reset()
	case strings.HasPrefix(l, "data:"):
		if e.data.Len() > 0 {
			e.data.WriteByte('\n')
		}
		if e.data.Len() < maxMessageBytes {
			e.data.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " "))
		}
	}
}

func (e *eventStreamTee) Close() error { return e.body.Close() }
