// Package mcp makes the tools of MCP servers into toolscope tools. It is
// an MCP client (a "host", in MCP's words) built around toolscope's own
// tool-calling loop: it starts stdio servers or reaches HTTP ones, keeps
// their tool lists current, and turns each tools/call result into the text
// a model reads.
//
// A Hub holds the connections:
//
//	spec, err := mcp.ParseFlag("npx -y @modelcontextprotocol/server-everything", "")
//	…
//	hub, err := mcp.Connect(ctx, []mcp.ServerSpec{spec}, mcp.Options{})
//	if err != nil {
//		log.Print(err) // some servers failed; the others are usable
//	}
//	defer hub.Close()
//	registry, err := tools.NewRegistry(hub.Tools()...)
//
// Every call records the JSON-RPC messages it exchanged with
// [tools.Record], so that front ends can show them beside the call. With
// an OpenTelemetry tracer provider set globally (package telemetry sets
// one), each call is a client span "tools/call {tool}" under the span in
// its context, and carries its trace context to the server in
// params._meta and, over HTTP, in the request's headers.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/toolscope/toolscope/tools"
)

// Options tunes a Hub. The zero value is ready to use.
type Options struct {
	// Timeout bounds each tools/call, and each fetch of a tool list that
	// a server announced; a call that runs out is cancelled on the server
	// too. The default is 30 seconds.
	Timeout time.Duration
	// HandshakeTimeout bounds connecting to a server: starting it, the
	// initialize handshake and listing its tools. It is generous by
	// default, 30 seconds, since npx, uvx or docker may first download
	// the server.
	HandshakeTimeout time.Duration
	// StartWait is how long an HTTP server that refuses the connection,
	// or whose host name does not resolve yet, is asked again: one that
	// starts beside toolscope (Docker Compose starts services together)
	// may not be listening yet. It is cut short by HandshakeTimeout. The
	// default is 5 seconds.
	StartWait time.Duration
	// ShutdownTimeout is how long a stdio server may take to exit once its
	// input is closed, and again once it has been sent SIGTERM, before it
	// is killed. The default is 2 seconds.
	ShutdownTimeout time.Duration
	// OAuth says where sign-ins to servers that ask for OAuth are kept,
	// and how the user is asked to sign in (see oauth.go).
	OAuth OAuthOptions
	// Roots are the working folders the user named, absolute paths (see
	// Root): each server may ask for them (roots/list), as file:// URIs.
	// Without any, toolscope declares no roots capability.
	Roots []string
	// DiscoverTimeout is how long a stdio server may leave the
	// server/discover request that opens the handshake unanswered before
	// toolscope takes it for a server of an older revision, one that drops
	// requests it does not know, and sends initialize instead. The default
	// is 5 seconds.
	DiscoverTimeout time.Duration
	// Logger receives connection events and, at debug level, every line
	// the servers write to stderr. The default is slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 30 * time.Second
	}
	if o.StartWait <= 0 {
		o.StartWait = 5 * time.Second
	}
	if o.DiscoverTimeout <= 0 {
		o.DiscoverTimeout = 5 * time.Second
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.OAuth.Wait <= 0 {
		o.OAuth.Wait = 5 * time.Minute
	}
	return o
}

// State is where a server's connection stands.
type State string

const (
	StateReady  State = "ready"  // connected; its tools are offered
	StateFailed State = "failed" // it failed to connect, or stopped; ServerInfo.Error says why
	StateClosed State = "closed" // the Hub was closed
	// StateSignIn: it asks the user to sign in (OAuth), from the page:
	// Hub.SignIn starts that.
	StateSignIn State = "sign-in"
)

// ServerInfo describes one server of a Hub, for a front end to show.
type ServerInfo struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // "stdio", "http" or "sse"
	Target    string `json:"target"`    // the command line or the URL
	PID       int    `json:"pid,omitempty"`
	State     State  `json:"state"`
	// Protocol is the revision of MCP the server and toolscope agreed on,
	// as "2026-07-28" or "2025-11-25"; "" until it is ready.
	Protocol string `json:"protocol,omitempty"`
	Error    string `json:"error,omitempty"`
	// Tools are the names the model calls the server's tools by.
	Tools []string `json:"tools"`
	// Warnings note tools left out or renamed, and output on stdout that
	// was not JSON-RPC.
	Warnings []string `json:"warnings,omitempty"`
	// Log holds the last lines the server wrote to stderr, and any stray
	// lines it wrote to stdout, marked "stdout: ".
	Log []string `json:"log,omitempty"`
	// SignIn is "needed" when the server waits for the user to sign in
	// (OAuth), at connecting or for more scopes, and "waiting" while the
	// authorization page is open; "" otherwise. Tokens are never shown.
	SignIn string `json:"sign_in,omitempty"`
	// SignInError says why the last sign-in failed.
	SignInError string `json:"sign_in_error,omitempty"`
}

// Hub is a set of connected MCP servers. Its methods are safe for
// concurrent use.
type Hub struct {
	logger *slog.Logger
	ctx    context.Context // the servers' connections live as long
	opts   Options
	flows  *flows
	oauth  map[string]*oauthClient // by server name; set by Connect

	mu       sync.Mutex
	servers  []*server // a server that signs in from the page is replaced
	closed   bool
	stop     func() bool // stops closing the Hub when Connect's context ends
	tools    []tools.Tool
	warned   map[string]bool // tool names already reported as shared
	onChange []func()

	closeOnce sync.Once
	signIns   sync.WaitGroup // the page's sign-ins under way, which Close waits for (oauth_flow.go)
}

// Connect connects to every server at once and returns when each is
// ready or has failed. A server that fails takes nothing else down: the
// returned Hub is usable, and the returned error joins one error per
// failed server, each naming it and saying what to do. The Hub is never
// nil and must be closed.
//
// The servers live as long as ctx: when it ends, the Hub closes, as if
// Close had been called. Two servers with the same name are told apart
// by a suffix, as in "server-2".
func Connect(ctx context.Context, specs []ServerSpec, opts Options) (*Hub, error) {
	opts = opts.withDefaults()
	h := &Hub{logger: opts.Logger, ctx: context.WithoutCancel(ctx), opts: opts, flows: &flows{}, oauth: map[string]*oauthClient{}, warned: make(map[string]bool)}
	seen := make(map[string]int)
	errs := make([]error, len(specs))
	for i, spec := range specs {
		name := spec.name()
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, seen[name])
		}
		s := newServer(ctx, spec, name, opts, h.serverChanged)
		if spec.signsIn() {
			s.oauth, errs[i] = newOAuthClient(spec, name, opts.OAuth, h.flows)
			h.oauth[name] = s.oauth
		}
		h.servers = append(h.servers, s)
	}
	// A sign-in that cannot be read is said, and the server signs in anew.
	for i, err := range errs {
		if err != nil {
			h.logger.Warn("MCP server's kept sign-in unreadable; it signs in anew", "server", h.servers[i].name, "error", err)
		}
	}

	var wg sync.WaitGroup
	for i, s := range h.servers {
		wg.Go(func() { errs[i] = s.connect(ctx) })
	}
	wg.Wait()
	h.mu.Lock()
	h.stop = context.AfterFunc(ctx, func() { h.Close() })
	h.mu.Unlock()
	h.rebuild()
	return h, errors.Join(errs...)
}

// Tools returns the tools of every ready server, server by server in the
// order of the specs, each in its server's order. Each implements
// [tools.Sourced] with the source "mcp:<server name>".
//
// A tool keeps the name its server gives it unless another server offers
// a tool of the same name; then each of those is prefixed with its
// server's name and an underscore, as in "calculator_add", a form small
// models write without trouble, and a warning is logged.
func (h *Hub) Tools() []tools.Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.tools)
}

// Servers describes each server, in the order of the specs.
func (h *Hub) Servers() []ServerInfo {
	exposed := h.Tools()
	servers := h.list()
	infos := make([]ServerInfo, len(servers))
	for i, s := range servers {
		s.mu.Lock()
		info := ServerInfo{
			Name:      s.name,
			Transport: s.spec.transport(),
			Target:    s.spec.target(),
			State:     s.state,
			Protocol:  s.protocol,
			Tools:     []string{},
			Warnings:  slices.Clone(s.warnings),
			Log:       s.log.last(logLines),
		}
		if s.err != nil {
			info.Error = s.err.Error()
		}
		if s.firstStray != "" {
			info.Warnings = append(info.Warnings, "printed lines that are not JSON-RPC on stdout (see its log); servers should log to stderr")
		}
		s.mu.Unlock()
		if s.proc != nil {
			info.PID = s.proc.cmd.Process.Pid
		}
		if s.oauth != nil {
			info.SignIn, info.SignInError = s.oauth.info()
		}
		for _, t := range exposed {
			if rt := t.(*remoteTool); rt.server == s {
				info.Tools = append(info.Tools, rt.name)
				if rt.name != rt.remote.Name {
					info.Warnings = append(info.Warnings, fmt.Sprintf("tool %q is offered by another server too; the model calls this one %q", rt.remote.Name, rt.name))
				}
			}
		}
		infos[i] = info
	}
	return infos
}

// OnToolsChanged registers fn to be called, on a goroutine of the Hub's,
// whenever the tools change: a server announced a new list, or a server
// stopped and its tools went with it. Tools then returns the new set.
func (h *Hub) OnToolsChanged(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onChange = append(h.onChange, fn)
}

// Close ends every session and stops every stdio server: its input is
// closed, then it is sent SIGTERM, then SIGKILL, and it is reaped, with
// whatever it started. Calls in flight fail, and sign-ins from the page
// under way end, with the connections they were making. Close returns once all is
// done, also when the end of Connect's context began it, so a program
// should call it before it exits. It is safe to call more than once, and
// always returns nil.
func (h *Hub) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		stop := h.stop
		h.closed = true
		h.mu.Unlock()
		if stop != nil {
			stop()
		}
		for _, o := range h.oauth {
			o.end()
		}
		h.signIns.Wait() // ended, they connect nothing more
		var wg sync.WaitGroup
		for _, s := range h.list() {
			wg.Go(s.close)
		}
		wg.Wait()
		h.mu.Lock()
		h.tools = nil
		h.mu.Unlock()
	})
	return nil
}

// list returns the servers, in the order of the specs.
func (h *Hub) list() []*server {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.servers)
}

func (h *Hub) serverChanged() {
	h.rebuild()
	h.mu.Lock()
	fns := slices.Clone(h.onChange)
	h.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// rebuild names the tools of the ready servers, prefixing the names that
// several servers share.
func (h *Hub) rebuild() {
	type offer struct {
		server *server
		tool   *remoteTool
	}
	var offers []offer
	offeredBy := make(map[string][]string) // tool name → server names
	for _, s := range h.list() {
		for _, t := range s.currentTools() {
			tool := *t // renamed below, while the server's list keeps its names
			offers = append(offers, offer{s, &tool})
			offeredBy[t.name] = append(offeredBy[t.name], s.name)
		}
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	taken := make(map[string]bool)
	h.tools = nil
	for _, o := range offers {
		if len(offeredBy[o.tool.name]) > 1 {
			o.tool.name = identifier(o.server.name) + "_" + o.tool.name
		}
		for n := 2; taken[o.tool.name]; n++ { // a prefixed name can collide too
			o.tool.name = fmt.Sprintf("%s_%s_%d", identifier(o.server.name), o.tool.remote.Name, n)
		}
		taken[o.tool.name] = true
		h.tools = append(h.tools, o.tool)
	}
	for name, servers := range offeredBy {
		if len(servers) > 1 && !h.warned[name] {
			h.warned[name] = true
			h.logger.Warn("several MCP servers offer a tool of the same name; the model gets each under its server's name", "tool", name, "servers", servers)
		}
	}
}

// identifier makes a server name fit to prefix a tool name, which models
// write more reliably with letters, digits and underscores only.
func identifier(name string) string {
	id := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, name)
	if id = strings.Trim(id, "_"); id == "" {
		return "server"
	}
	return id
}
