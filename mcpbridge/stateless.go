package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol 2026-07-28 (SEP-2575) has no sessions: a client sends
// server/discover rather than initialize, then each request alone,
// carrying the revision, its own name and its capabilities in _meta, and
// the revision in the MCP-Protocol-Version header. The bridge serves all
// such requests, from every client, with one shared child: a child per
// request would start the server's process (npx, uvx, docker) for every
// call, seconds each, and the revision promises a client nothing that a
// shared process breaks, since it keeps no state per client. Toward the
// child each request gets an id and progress token of the bridge's own,
// as two clients may well choose the same, and the answer and progress
// go back under the client's. What the child sends of its own accord
// (notifications/tools/list_changed) goes to every client that listens
// (subscriptions/listen); there is nobody else to send it to.

// statelessRevision is the first revision without sessions. mcpserver
// (revisions.go) holds the same constant, and decides the same way which
// requests are of it: mcpserver may import no toolscope package, and this
// package none but tools/mcp, whose protocolVersion is the revision
// toolscope's client asks for, not this threshold; so each side keeps one.
const statelessRevision = "2026-07-28"

// transportStateless is the transport of the shared session.
const transportStateless = "stateless"

// isStateless reports whether a POST, whose messages are msgs, belongs to
// a revision without sessions: one its MCP-Protocol-Version header names
// or, lacking the header, its request's _meta (as mcpserver decides). Such
// a request without the header is the revision's and still wrong: the
// revision wants the header on every request, and a server to answer one
// that carries the _meta without it 400 with -32020 (as the SDK does);
// checkHeaders says so, where the session path would only ask for an
// initialize the client will never send.
func isStateless(r *http.Request, msgs []jsonrpc.Message) bool {
	if r.Header.Get(sessionHeader) != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= statelessRevision
	}
	if len(msgs) != 1 {
		return false
	}
	req, ok := msgs[0].(*jsonrpc.Request)
	return ok && metaVersion(req) >= statelessRevision
}

// metaVersion is the revision a request names in its _meta, or "".
func metaVersion(req *jsonrpc.Request) string {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p) // params of another shape carry no _meta
	v, _ := p.Meta[sdk.MetaKeyProtocolVersion].(string)
	return v
}

// origin is what a request of the shared session was called by its
// client.
type origin struct {
	id     jsonrpc.ID
	token  json.RawMessage // its progress token, or nil
	listen bool            // a subscriptions/listen, which the child's notifications go to
}

// own gives a client's request of the shared session an id and progress
// token of the bridge's, and notes what the client called them. A
// notification passes as it is, but notifications/cancelled, whose
// request id may be any client's: a client cancels by closing its POST
// (see abandon).
func (s *session) own(msg jsonrpc.Message) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil // an answer to the child, which asks nothing in this revision
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			return nil
		}
		return req
	}
	s.mu.Lock()
	s.nextID++
	n := s.nextID
	s.mu.Unlock()
	id, _ := jsonrpc.MakeID(fmt.Sprintf("bridge-%d", n)) // a string is always an ID
	o := origin{id: req.ID, listen: req.Method == "subscriptions/listen"}
	params := req.Params
	if token, rewritten, ok := replaceToken(params, "_meta", json.RawMessage(fmt.Sprintf(`"bridge-%d"`, n))); ok {
		o.token, params = token, rewritten
	}
	s.mu.Lock()
	s.origins[id] = o
	s.mu.Unlock()
	return &jsonrpc.Request{ID: id, Method: req.Method, Params: params}
}

// replaceToken replaces the progressToken in params (under meta, if
// given), and returns the old one and the new params, every other byte as
// it was; ok is false if params carry none.
func replaceToken(params json.RawMessage, meta string, token json.RawMessage) (old, rewritten json.RawMessage, ok bool) {
	if meta != "" {
		start, end, found := member(params, meta)
		if !found {
			return nil, nil, false
		}
		old, inner, ok := replaceToken(params[start:end], "", token)
		if !ok {
			return nil, nil, false
		}
		return old, splice(params, start, end, inner), true
	}
	start, end, found := member(params, "progressToken")
	if !found {
		return nil, nil, false
	}
	return slices.Clone(params[start:end]), splice(params, start, end, token), true
}

// member finds the value of the member name of the JSON object obj.
func member(obj []byte, name string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return 0, 0, false
		}
		if key == name {
			end := int(dec.InputOffset())
			return end - len(value), end, true
		}
	}
	return 0, 0, false
}

func splice(b []byte, start, end int, with []byte) []byte {
	return slices.Concat(b[:start], with, b[end:])
}

// restore gives a message of the child's on the shared session the id or
// progress token its client gave; s.mu is held.
func (s *session) restore(msg jsonrpc.Message) jsonrpc.Message {
	switch msg := msg.(type) {
	case *jsonrpc.Response:
		if o, ok := s.origins[msg.ID]; ok {
			return &jsonrpc.Response{ID: o.id, Result: msg.Result, Error: msg.Error}
		}
	case *jsonrpc.Request:
		if msg.Method != "notifications/progress" {
			break
		}
		id := s.progress[progressToken(msg.Params, false)]
		if o, ok := s.origins[id]; ok && o.token != nil {
			if _, params, ok := replaceToken(msg.Params, "", o.token); ok {
				return &jsonrpc.Request{Method: msg.Method, Params: params}
			}
		}
	}
	return msg
}

// listeners are the streams of the shared session's open
// subscriptions/listen requests; s.mu is held.
func (s *session) listeners() []*stream {
	var sts []*stream
	for id, o := range s.origins {
		if p, ok := s.requests[id]; ok && o.listen && p.st != nil {
			sts = append(sts, p.st)
		}
	}
	return sts
}

// abandon tells the child to drop the requests of a POST whose client
// went away, or cancelled them by closing it, as 2026-07-28 clients do.
func (s *session) abandon(st *stream) {
	s.mu.Lock()
	var ids []jsonrpc.ID
	for id, p := range s.requests {
		if p.st == st {
			ids = append(ids, id)
			s.forget(id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		params, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": "the client closed its request"})
		if s.conn != nil {
			_ = s.conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		}
	}
}

// checkHeaders checks a 2026-07-28 POST's headers against its body, as
// the revision has the server do before anything else; the child, on
// stdio, sees no headers, so the bridge does it. It answers a request
// that fails, 400 Bad Request with a JSON-RPC error, and returns false.
func checkHeaders(w http.ResponseWriter, r *http.Request, msgs []jsonrpc.Message) bool {
	if len(msgs) != 1 {
		http.Error(w, "Bad Request: protocol 2026-07-28 sends one JSON-RPC message a POST, not a batch", http.StatusBadRequest)
		return false
	}
	req, ok := msgs[0].(*jsonrpc.Request)
	if !ok {
		return true // an answer, which the shared session drops
	}
	fail := func(code int64, format string, args ...any) bool {
		resp := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: code, Message: "toolscope mcp bridge: " + fmt.Sprintf(format, args...)}}
		data, _ := jsonrpc.EncodeMessage(resp) // decoded a moment ago
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(data)
		return false
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if req.IsCall() {
		switch meta := metaVersion(req); {
		case version == "":
			return fail(sdk.CodeHeaderMismatch, "the header Mcp-Protocol-Version is required on a request whose _meta %q names %q", sdk.MetaKeyProtocolVersion, meta)
		case meta == "":
			return fail(jsonrpc.CodeInvalidParams, "missing or invalid _meta field %q", sdk.MetaKeyProtocolVersion)
		case meta != version:
			return fail(sdk.CodeHeaderMismatch, "the header Mcp-Protocol-Version %q does not match the request's _meta %q", version, meta)
		}
	}
	if got := r.Header.Get("Mcp-Method"); got != req.Method {
		return fail(sdk.CodeHeaderMismatch, "the header Mcp-Method %q does not match the request's method %q", got, req.Method)
	}
	if field, named := nameFields[req.Method]; named {
		var p map[string]any
		_ = json.Unmarshal(req.Params, &p)
		if want, _ := p[field].(string); r.Header.Get("Mcp-Name") != want {
			return fail(sdk.CodeHeaderMismatch, "the header Mcp-Name %q does not match the request's %s %q", r.Header.Get("Mcp-Name"), field, want)
		}
	}
	return true
}

// nameFields are the methods whose requests name their object in the
// Mcp-Name header, and the field of their params that holds the name.
var nameFields = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
