// Package mcpbridge serves a stdio MCP server over HTTP, so that a server
// written for a client on the same machine can run on another one, or in
// a container of its own: `toolscope mcp bridge -- COMMAND…` serves
// streamable HTTP at /mcp and the older HTTP+SSE transport at /sse.
//
// # One process per session
//
// Each MCP session, a streamable HTTP session (one Mcp-Session-Id) or an
// SSE connection, gets a process of its own. It starts when the client's
// first message, its initialize, arrives, and it is stopped, with
// whatever it started, when the session ends: the client sends DELETE
// (streamable HTTP) or closes its event stream (SSE), or it leaves the
// session without an open request for [Options.IdleTimeout], or the
// child exits, or the Bridge is closed. Clients share nothing: one's
// roots, subscriptions and state are never another's.
// At most [Options.MaxSessions] are open at once: past them, a client
// that would open one more is answered 503 Service Unavailable.
//
// # A pass-through
//
// The bridge speaks JSON-RPC, not MCP. Each message from the client goes
// to the child as it came, and each message from the child to the
// client: requests, responses and notifications, both ways, whatever
// their method. The client's initialize is the child's own, so the two
// agree on the protocol version and capabilities without the bridge;
// cancellation, progress, list_changed, logging, and the server's
// requests (sampling, elicitation, roots/list, ping) pass through like
// any other message.
//
// The bridge writes the HTTP transports itself rather than use the SDK's
// server transports, which refuse the methods the SDK does not know and
// tie a server's notifications to a client's request only for an
// mcp.Server above them. On streamable HTTP the answer to a request goes
// on the event stream of the POST that carried it, and so does the
// progress the child reports on it (by its progress token), before the
// answer. What else the child sends of its own accord (list_changed,
// logging, its requests to the client) cannot be tied to a request, since
// stdio says nothing of the kind: it goes on the session's GET stream,
// which holds it (up to 16 MB) until the client opens it. MCP clients
// open it as soon as they are initialized. Streams are not resumed:
// the bridge gives its events no IDs.
//
// The bridge adds words of its own only when the child cannot answer: a
// request left unanswered when the child exits, or one that could not
// start it, gets a JSON-RPC error with the exit status and the child's
// last lines on stderr. A streamable HTTP session ends then (404 from
// then on, which tells a client to initialize again); an SSE session
// answers every request so until its client closes the stream.
//
// # Security
//
// Whoever reaches the bridge runs the child's tools, as the user the
// bridge runs as. On a loopback address, requests that call it by a name
// other than localhost are refused (a web page's DNS rebinding), and so
// are cross-origin browser requests (http.CrossOriginProtection). On any
// other address, set [Options.Token]: every request must then carry
// "Authorization: Bearer TOKEN".
package mcpbridge

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools/mcp"
)

// Where the bridge answers each transport.
const (
	PathHTTP = "/mcp" // streamable HTTP
	PathSSE  = "/sse" // HTTP+SSE
)

// DefaultMaxSessions bounds the processes a bridge runs at once, which
// clients could otherwise start without end.
const DefaultMaxSessions = 32

// Options tunes a Bridge. The zero value serves both transports, with no
// token.
type Options struct {
	// Transport is mcp.TransportHTTP (streamable HTTP at /mcp),
	// mcp.TransportSSE (HTTP+SSE at /sse), or "" for both.
	Transport string
	// Token, when set, is the bearer token every request must carry, as
	// "Authorization: Bearer TOKEN".
	Token string
	// MaxSessions is how many sessions, and so child processes, may be
	// open at once; a client that would open one more is answered 503
	// Service Unavailable until one ends. The default is
	// DefaultMaxSessions.
	MaxSessions int
	// IdleTimeout ends a session that has had no HTTP request open for so
	// long: its client went away without a word. Clients that keep their
	// GET stream open are never idle. The default is 30 minutes.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long a child may take to exit once its input
	// is closed, and again once it has been sent SIGTERM, before it is
	// killed. The default is 2 seconds.
	ShutdownTimeout time.Duration
	// Logger receives sessions' starts and ends, and every line the
	// children write to stderr, at info level. The default is
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Minute
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Bridge is an http.Handler serving one stdio MCP server, a process per
// session. It answers at PathHTTP and PathSSE, whatever it is mounted
// under. Close it before the HTTP server that serves it: its sessions
// hold requests open.
type Bridge struct {
	spec    mcp.ServerSpec
	opts    Options
	handler http.Handler
	wg      sync.WaitGroup // a goroutine per session

	mu        sync.Mutex
	sessions  map[string]*session // by Mcp-Session-Id, or SSE sessionid
	stateless *session            // the session every 2026-07-28 request shares, once one came
	count     int                 // sessions opened, to name them in the log
	closed    bool
}

// New returns a Bridge that runs command, a program and its arguments,
// for each session. The program must be found, on PATH or at the path
// given, now rather than when the first client arrives.
func New(command []string, opts Options) (*Bridge, error) {
	if len(command) == 0 {
		return nil, errors.New("no command to bridge; give one, e.g. npx -y @modelcontextprotocol/server-everything")
	}
	if _, err := exec.LookPath(command[0]); err != nil {
		var execErr *exec.Error
		if errors.As(err, &execErr) {
			err = execErr.Err
		}
		return nil, fmt.Errorf("cannot run %q: %v; install it, or give its full path", command[0], err)
	}
	switch opts.Transport {
	case "", mcp.TransportHTTP, mcp.TransportSSE:
	default:
		return nil, fmt.Errorf("unknown transport %q; use http or sse, or neither for both", opts.Transport)
	}
	b := &Bridge{
		spec:     mcp.ServerSpec{Command: command[0], Args: command[1:], Transport: mcp.TransportStdio},
		opts:     opts.withDefaults(),
		sessions: make(map[string]*session),
	}
	// A web page the user visits must not be able to drive the tools.
	b.handler = http.NewCrossOriginProtection().Handler(http.HandlerFunc(b.route))
	return b, nil
}

// Paths are where the bridge answers: PathHTTP, PathSSE, or both.
func (b *Bridge) Paths() []string {
	switch b.opts.Transport {
	case mcp.TransportHTTP:
		return []string{PathHTTP}
	case mcp.TransportSSE:
		return []string{PathSSE}
	}
	return []string{PathHTTP, PathSSE}
}

// ServeHTTP serves the MCP transports.
func (b *Bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.handler.ServeHTTP(w, r)
}

func (b *Bridge) route(w http.ResponseWriter, r *http.Request) {
	if rebound(r) {
		http.Error(w, fmt.Sprintf("Forbidden: this bridge listens on a loopback address, which %q does not name", r.Host), http.StatusForbidden)
		return
	}
	if !b.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolscope mcp bridge"`)
		http.Error(w, "Unauthorized: this bridge wants its token, as the header Authorization: Bearer TOKEN", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, sdk.DefaultMaxRequestBodyBytes)
	}
	switch paths := b.Paths(); {
	case !slices.Contains(paths, r.URL.Path):
		http.Error(w, "Not found: this MCP bridge answers at "+strings.Join(paths, " and "), http.StatusNotFound)
	case r.URL.Path == PathHTTP:
		b.serveStreamable(w, r)
	default:
		b.serveSSE(w, r)
	}
}

func (b *Bridge) authorized(r *http.Request) bool {
	if b.opts.Token == "" {
		return true
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(b.opts.Token)) == 1
}

// rebound reports a request that reached a loopback address under a name
// other than localhost: a web page that had its own name resolve to
// 127.0.0.1 (DNS rebinding) to reach a server on the user's machine. An
// address written out, such as the [::] a bridge on all addresses prints,
// is no page's name.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !Loopback(local.String()) {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	return !strings.EqualFold(host, "localhost") && net.ParseIP(strings.Trim(host, "[]")) == nil
}

// Loopback reports whether hostport (or a host alone) names a loopback
// address, which other machines cannot reach: localhost, 127.0.0.1, ::1.
func Loopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// open opens a session of transport for request r's client, and starts
// the goroutine that will run its child.
func (b *Bridge) open(transport string, r *http.Request) (*session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.openLocked(transport, r)
}

// shared returns the session of the 2026-07-28 requests, opening it for
// the first one, and again once it has ended.
func (b *Bridge) shared(r *http.Request) (*session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.stateless; s != nil && b.sessions[s.id] == s {
		return s, nil
	}
	s, err := b.openLocked(transportStateless, r)
	if err == nil {
		b.stateless = s
	}
	return s, err
}

// openLocked is open with b.mu held.
func (b *Bridge) openLocked(transport string, r *http.Request) (*session, error) {
	if b.closed {
		return nil, errors.New("the bridge is shutting down")
	}
	if len(b.sessions) >= b.opts.MaxSessions {
		return nil, fmt.Errorf("the bridge has %d sessions open, as many as it serves at once; try again once a client ends its own", len(b.sessions))
	}
	b.count++
	s := newSession(b, rand.Text(), fmt.Sprintf("session %d", b.count), transport, r.RemoteAddr)
	b.sessions[s.id] = s
	b.wg.Add(1)
	go s.run()
	return s, nil
}

// session returns the session of transport that id names, or nil.
func (b *Bridge) session(id, transport string) *session {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.sessions[id]; s != nil && s.transport == transport {
		return s
	}
	return nil
}

func (b *Bridge) forget(s *session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sessions, s.id)
}

// Close ends every session and stops its child, and returns once every
// child has been reaped. Sessions that clients open afterwards are
// refused. It is safe to call more than once, and always returns nil.
func (b *Bridge) Close() error {
	b.mu.Lock()
	b.closed = true
	sessions := make([]*session, 0, len(b.sessions))
	for _, s := range b.sessions {
		sessions = append(sessions, s)
	}
	b.mu.Unlock()
	for _, s := range sessions {
		s.end("the bridge stopped")
	}
	b.wg.Wait()
	return nil
}
