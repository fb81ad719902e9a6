package mcp

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// flows are the sign-ins whose browsers have yet to come back, by the
// OAuth state each authorization URL carries. The state is the callback's
// only credential: a callback whose state no sign-in waits for is
// refused, so a forged or replayed one cannot hand toolscope a code.
type flows struct {
	mu sync.Mutex
	m  map[string]*flow
}

type flow struct {
	server string
	result chan callback
}

type callback struct {
	code, state, iss string
	err              error
}

// ErrUnknownState is the answer to a callback whose state matches no
// sign-in under way: an old link, one already used, or a forged one.
var ErrUnknownState = errors.New("this sign-in's state matches none under way (OAuth state mismatch): it is old, already used, or not toolscope's; start again with Authorize")

// add registers a sign-in under state and returns what waits for its
// callback.
func (f *flows) add(state, server string) func(context.Context) (*auth.AuthorizationResult, error) {
	fl := &flow{server: server, result: make(chan callback, 1)}
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flow{}
	}
	f.m[state] = fl
	f.mu.Unlock()
	return func(ctx context.Context) (*auth.AuthorizationResult, error) {
		defer func() {
			f.mu.Lock()
			delete(f.m, state)
			f.mu.Unlock()
		}()
		select {
		case cb := <-fl.result:
			if cb.err != nil {
				return nil, cb.err
			}
			return &auth.AuthorizationResult{Code: cb.code, State: cb.state, Iss: cb.iss}, nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// complete hands a callback's query to the sign-in it belongs to, and
// returns that sign-in's server.
func (f *flows) complete(q url.Values) (string, error) {
	state := q.Get("state")
	f.mu.Lock()
	fl := f.m[state]
	delete(f.m, state)
	f.mu.Unlock()
	if fl == nil || state == "" {
		return "", ErrUnknownState
	}
	cb := callback{code: q.Get("code"), state: state, iss: q.Get("iss")}
	switch e := q.Get("error"); {
	case e == "access_denied":
		cb.err = &SignInError{Server: fl.server, Problem: "access was denied at its authorization server", Next: "to use it, sign in again and approve"}
	case e != "":
		what := e
		if d := q.Get("error_description"); d != "" {
			what += ": " + d
		}
		cb.err = &SignInError{Server: fl.server, Problem: "its authorization server refused the authorization (" + what + ")", Next: "check the server's OAuth settings, then sign in again"}
	case cb.code == "":
		cb.err = &SignInError{Server: fl.server, Problem: "its authorization server sent the browser back without a code", Next: "sign in again"}
	}
	fl.result <- cb
	return fl.server, cb.err
}

// callbackPage is what the browser shows once it is back.
var callbackPage = template.Must(template.New("callback").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · toolscope</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head>
<body><h1>{{.Title}}</h1><p>{{.Text}}</p></body></html>
`))

// WriteCallbackPage answers a callback's browser with what became of it:
// err from Hub.Callback, or nil. The code is exchanged for a token, and
// the server connected, after the page is written, so it claims no more
// than that the authorization came back: the panel, or the terminal,
// says how the rest went.
func WriteCallbackPage(w http.ResponseWriter, server string, err error) {
	data := struct{ Title, Text string }{"Authorization received", fmt.Sprintf("Authorization received; toolscope is connecting to the MCP server %q. You can close this tab.", server)}
	status := http.StatusOK
	if err != nil {
		data.Title, data.Text, status = "Not signed in", err.Error(), http.StatusBadRequest
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = callbackPage.Execute(w, data)
}

// handler serves CallbackPath on a terminal's loopback redirect.
func (f *flows) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+CallbackPath, func(w http.ResponseWriter, r *http.Request) {
		server, err := f.complete(r.URL.Query())
		WriteCallbackPage(w, server, err)
	})
	return mux
}

// SignIn starts the sign-in of the server named name, which waits for
// one (ServerInfo.SignIn), with the browser to come back to redirectURL,
// where a front end passes the query to Callback. It returns the
// authorization URL to open once discovery and registration are done, or
// why they failed. The sign-in goes on after SignIn returns, up to
// Options.OAuth.Wait; once it succeeds, the server connects (or its call
// may be tried again, after a step-up) and the tools-changed callbacks
// run. A new SignIn for the same server ends the one before.
func (h *Hub) SignIn(ctx context.Context, name, redirectURL string) (string, error) {
	o := h.oauth[name]
	if o == nil {
		return "", fmt.Errorf("no MCP server named %q signs in with OAuth", name)
	}
	// Close waits for the sign-in; cancel (by Close, through o.end, or by
	// a newer SignIn) ends it, and the connection it makes after.
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return "", fmt.Errorf("MCP server %q: %w", name, errClosed)
	}
	h.signIns.Add(1)
	h.mu.Unlock()
	o.mu.Lock()
	ch := o.challenge
	if ch == nil {
		o.mu.Unlock()
		h.signIns.Done()
		return "", fmt.Errorf("MCP server %q needs no sign-in now", name)
	}
	req, err := http.NewRequest(http.MethodPost, ch.url, nil)
	if err != nil {
		o.mu.Unlock()
		h.signIns.Done()
		return "", err
	}
	if o.cancel != nil {
		o.cancel()
	}
	signInCtx, cancel := context.WithCancel(h.ctx)
	flowCtx, cancelFlow := context.WithTimeout(signInCtx, h.opts.OAuth.Wait)
	req = req.WithContext(flowCtx)
	o.gen++
	gen := o.gen
	o.cancel, o.waiting, o.lastErr = cancel, true, nil
	o.mu.Unlock()
	h.serverChanged()

	resp := &http.Response{StatusCode: ch.status, Header: ch.header, Body: http.NoBody, Request: req}
	shown := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		defer h.signIns.Done()
		defer cancel()
		err := o.authorizationCode(flowCtx, req, resp, redirectURL, func(u string) { shown <- u })
		cancelFlow()
		o.mu.Lock()
		if o.gen == gen { // not ended by a newer sign-in, which speaks for itself
			if err == nil {
				o.challenge = nil
			} else { // a success keeps save's word, if any, on tokens not kept
				o.waiting, o.lastErr = false, err
			}
		}
		o.mu.Unlock()
		if err == nil {
			// Still waiting while the server connects: between the two,
			// the page would see a server neither signing in nor ready.
			h.reconnect(signInCtx, name)
			o.mu.Lock()
			if o.gen == gen {
				o.waiting = false
			}
			o.mu.Unlock()
		}
		h.serverChanged()
		done <- err
	}()
	select {
	case u := <-shown:
		return u, nil
	case err := <-done:
		return "", err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// Callback hands the query of a request to CallbackPath to the sign-in
// it belongs to. It returns that sign-in's server and, when the
// authorization failed or no sign-in has the query's state, why; pass
// both to WriteCallbackPage.
func (h *Hub) Callback(q url.Values) (string, error) {
	return h.flows.complete(q)
}

// reconnect connects anew a server that signed in while it was not
// ready; a ready one (a step-up) uses the new token as it is.
func (h *Hub) reconnect(ctx context.Context, name string) {
	h.mu.Lock()
	i := -1
	for j, s := range h.servers {
		if s.name == name {
			i = j
		}
	}
	closed := h.closed
	h.mu.Unlock()
	if i < 0 || closed {
		return
	}
	old := h.list()[i]
	if old.currentState() == StateReady {
		return
	}
	s := newServer(h.ctx, old.spec, old.name, h.opts, h.serverChanged)
	s.oauth = old.oauth
	_ = s.connect(ctx) // its state says how it went
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		s.close()
		return
	}
	h.servers[i] = s
	h.mu.Unlock()
	h.rebuild()
}
