package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"

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
// go back under the client's. Of what the child sends of its own accord
// (see unrouted), a list change goes to every client that listens
// (subscriptions/listen) for its kind, and what names a listen by its subscription id
// to that listen alone; a log notice goes to the bridge's log, not to
// some client's, and a request of the child's is answered with an error.

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
	wants  []string        // of a listen, the list changes (their methods) its client asked for
}

// listChanges are the list changes a listen may ask for, by the member of
// its params.notifications that asks, and the method that announces each.
var listChanges = map[string]string{
	"toolsListChanged":     "notifications/tools/list_changed",
	"promptsListChanged":   "notifications/prompts/list_changed",
	"resourcesListChanged": "notifications/resources/list_changed",
}

// wantedChanges are the methods of the list changes a subscriptions/listen
// whose params are params asks for. The child, seeing one session, may
// send a change that any listen asked for, so the bridge must give each
// listen only its own: a client that asked for prompts alone has said it
// wants to hear nothing of tools. Params of another shape ask for none;
// the child refuses them.
func wantedChanges(params json.RawMessage) []string {
	var p struct {
		Notifications map[string]any `json:"notifications"`
	}
	_ = json.Unmarshal(params, &p)
	var methods []string
	for member, method := range listChanges {
		if want, _ := p.Notifications[member].(bool); want {
			methods = append(methods, method)
		}
	}
	return methods
}

// own gives a client's request of the shared session an id and progress
// token of the bridge's, and notes what the client called them. A
// notification passes as it is, but notifications/cancelled, whose
// request id may be any client's: a client cancels by closing its POST
// (see abandon).
func (s *session) own(msg jsonrpc.Message) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil // a client's answer to the child, whose requests the bridge answers itself (unrouted)
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
	if o.listen {
		o.wants = wantedChanges(req.Params)
	}
	params := req.Params
	if token, rewritten, ok := replaceMember(params, "_meta", "progressToken", json.RawMessage(fmt.Sprintf(`"bridge-%d"`, n))); ok {
		o.token, params = token, rewritten
	}
	s.mu.Lock()
	s.origins[id] = o
	s.mu.Unlock()
	return &jsonrpc.Request{ID: id, Method: req.Method, Params: params}
}

// replaceMember replaces the member name of params (of its member meta,
// if given) with value, and returns the old value and the new params,
// every other byte as it was; ok is false if params carry none.
func replaceMember(params json.RawMessage, meta, name string, value json.RawMessage) (old, rewritten json.RawMessage, ok bool) {
	if meta != "" {
		start, end, found := member(params, meta)
		if !found {
			return nil, nil, false
		}
		old, inner, ok := replaceMember(params[start:end], "", name, value)
		if !ok {
			return nil, nil, false
		}
		return old, splice(params, start, end, inner), true
	}
	start, end, found := member(params, name)
	if !found {
		return nil, nil, false
	}
	return slices.Clone(params[start:end]), splice(params, start, end, value), true
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
			if _, params, ok := replaceMember(msg.Params, "", "progressToken", o.token); ok {
				return &jsonrpc.Request{Method: msg.Method, Params: params}
			}
		}
	}
	return msg
}

// metaSubscriptionID is the _meta member by which a 2026-07-28 server's
// notification names the subscriptions/listen request it belongs to: that
// request's JSON-RPC id.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// unrouted deals with a message of the shared child's that route could
// tie to no request's stream by its id or progress token. Only requests
// the child is answering have a stream, and the child may serve many
// clients' at once, so nothing else may go to whichever client happens
// to be waiting:
//   - a list change goes to every listen that asked for its kind, each
//     under its own subscription id (the child, seeing one session, may
//     know only the latest listen, and sends a change any listen asked
//     for);
//   - another notification naming a listen (its acknowledgement, a
//     resource's update) goes to that listen alone;
//   - a log notice (notifications/message) is logged by the bridge, not
//     sent: stdio says not which request, if any, it is about, and even
//     with one request in flight it may be the tail of the last one's, or
//     the server's own, so passing it to the client in flight could show
//     one client another's logs;
//   - a request (roots/list, ping, sampling, elicitation) is answered with
//     an error at once, so that the child does not wait for an answer no
//     client will give: a 2026-07-28 server asks its client within a
//     result (inputRequests), which passes like any other.
func (s *session) unrouted(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return // route reports a stray answer as not ok: none comes here
	}
	if req.IsCall() {
		s.logger.Info(s.name+": the server sent a request, which the bridge refused: no one client of the shared session can answer it", "method", req.Method)
		resp := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "toolscope mcp bridge: the bridge's shared 2026-07-28 session has no single client to ask " + req.Method + "; 2026-07-28 servers ask in the result (inputRequests)"}}
		_ = s.conn.Write(context.Background(), resp) // a child gone is heard of by toClient
		return
	}
	if req.Method == "notifications/message" {
		s.logger.Info(s.name+": the server logged", "notice", string(req.Params))
		return
	}
	var body struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &body) // params of another shape name no listen
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasSuffix(req.Method, "/list_changed") {
		for id, o := range s.origins {
			if p, ok := s.requests[id]; ok && slices.Contains(o.wants, req.Method) && p.st != nil {
				s.send(withSubscription(req, body.Meta, o.id), p.st, false)
			}
		}
		return
	}
	if raw, named := body.Meta[metaSubscriptionID]; named {
		var v any
		_ = json.Unmarshal(raw, &v)
		if id, err := jsonrpc.MakeID(v); err == nil {
			if o, ok := s.origins[id]; ok && o.listen && s.requests[id].st != nil {
				s.send(withSubscription(req, body.Meta, o.id), s.requests[id].st, false)
				return
			}
		}
	}
	s.logger.Debug(s.name+": a notification of the server's that belongs to no request, dropped", "method", req.Method)
}

// withSubscription is notification n with its _meta naming subscription
// id (a listen's id as its client gave it), if n's _meta (meta) names one.
func withSubscription(n *jsonrpc.Request, meta map[string]json.RawMessage, id jsonrpc.ID) *jsonrpc.Request {
	if _, named := meta[metaSubscriptionID]; !named {
		return n
	}
	raw, _ := json.Marshal(id.Raw()) // an id is a string or a number
	_, params, ok := replaceMember(n.Params, "_meta", metaSubscriptionID, raw)
	if !ok {
		return n
	}
	return &jsonrpc.Request{Method: n.Method, Params: params}
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

// answeredAlone reports whether the only message a 2026-07-28 request's
// stream can carry is its answer: a request with no progress token that
// is not a subscriptions/listen. What else the shared child sends belongs
// to no one request (unrouted). Such a request is answered as plain JSON
// (answerPlain), so that its answer's HTTP status can follow the answer.
func answeredAlone(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.IsCall() && req.Method != "subscriptions/listen" && progressToken(req.Params, true) == ""
}

// answerPlain waits for the one answer st carries and writes it as
// application/json, under the HTTP status the 2026-07-28 revision gives
// its error, if it is one: the child, on stdio, answers an unknown method
// or bad params with a JSON-RPC error alone, where the revision has an
// HTTP server also say 404 or 400. Nothing is written if the client went
// away first.
func answerPlain(ctx context.Context, stop <-chan struct{}, st *stream, w http.ResponseWriter) {
	next, done := iter.Pull(st.messages(ctx, stop))
	defer done()
	if data, ok := next(); ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(errorStatus(data))
		_, _ = w.Write(data) // a client gone is none of the child's concern
	}
}

// errorStatus is the HTTP status of a 2026-07-28 answer, as the SDK's
// streamable HTTP server gives it: 404 for a method not found, 400 for
// invalid params, an unsupported revision or missing client
// capabilities, and 200 for the rest (a result, or any other error).
func errorStatus(data []byte) int {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return http.StatusOK // encoded by the bridge a moment ago: cannot happen
	}
	resp, ok := msg.(*jsonrpc.Response)
	var jerr *jsonrpc.Error
	if !ok || !errors.As(resp.Error, &jerr) {
		return http.StatusOK
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, sdk.CodeUnsupportedProtocolVersion, sdk.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
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
