package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/internal/buildinfo"
	"github.com/toolscope/toolscope/tools"
)

// protocolVersion is the revision toolscope asks for. With it the SDK
// sends server/discover first (SEP-2575), and falls back to the
// initialize handshake at 2025-11-25, whose answer names the revision an
// older server speaks, on any error that does not come from a 2026-07-28
// server. A server that does not know server/discover costs one failed
// round trip: a JSON-RPC error from a stdio server, an HTTP error from an
// HTTP one; a stdio server that does not answer it at all costs
// Options.DiscoverTimeout, and one that exits at it a second start (see
// discoverWait).
const protocolVersion = "2026-07-28"

// legacyVersion is the newest revision with the initialize handshake.
const legacyVersion = "2025-11-25"

// Why a server's context ended.
var (
	errHandshakeTimeout = errors.New("handshake timed out")
	errClosed           = errors.New("the MCP client was closed")
	errStopped          = errors.New("the server stopped")
	errCallTimeout      = errors.New("call timed out")
)

// server is the connection to one MCP server.
type server struct {
	spec    ServerSpec
	name    string
	opts    Options
	logger  *slog.Logger
	changed func() // tells the hub that the server's tools changed

	// ctx lives as long as the connection; cancelling it, with the reason
	// as cause, aborts the handshake and every call in flight.
	ctx    context.Context
	cancel context.CancelCauseFunc

	log     lineLog
	tap     wiretap
	proc    *process      // stdio servers only
	http    *tapTransport // HTTP servers only
	session *sdk.ClientSession
	refresh chan struct{} // a tools/list_changed arrived
	ended   chan struct{} // closed once the connection has ended and state says why
	catalog *catalog      // its resources and prompts (resources.go)

	oauth *oauthClient // streamable HTTP servers that may sign in (oauth.go)
	// handshakeTimer ends a handshake that takes too long; a sign-in in
	// a terminal holds it while the user is in the browser.
	handshakeTimer *time.Timer
	signInErr      *SignInError // a sign-in that failed while connecting (oauth.go)

	shutdownOnce sync.Once
	// exitedAtDiscover is set when a stdio server exits with
	// server/discover unanswered.
	exitedAtDiscover atomic.Bool

	mu         sync.Mutex
	state      State
	protocol   string        // the revision of MCP agreed on, once ready
	err        error         // why the server failed
	stopReason string        // why a server that was ready stopped, as in "exit status 2"
	tools      []*remoteTool // the server's usable tools, in its order, under its names
	warnings   []string      // tools left out, and why
	sdkLeftOut []string      // the tools the SDK left out of the listing under way
	firstStray string        // the first line on stdout that was not JSON-RPC
}

func newServer(ctx context.Context, spec ServerSpec, name string, opts Options, changed func()) *server {
	s := &server{
		spec:    spec,
		name:    name,
		opts:    opts,
		logger:  opts.Logger.With("server", name),
		changed: changed,
		refresh: make(chan struct{}, 1),
		ended:   make(chan struct{}),
		catalog: newCatalog(),
	}
	// The connection outlives Connect's deadline, if any; the hub ends it.
	s.ctx, s.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	return s
}

// connect starts or reaches the server, shakes hands and lists its tools,
// all within the handshake timeout. Once it returns, the server is either
// ready or failed, with nothing left running.
func (s *server) connect(ctx context.Context) error {
	if err := s.spec.check(); err != nil {
		return s.fail(fmt.Errorf("MCP server %q: %w", s.name, err))
	}
	stopOnCancel := context.AfterFunc(ctx, func() { s.cancel(context.Cause(ctx)) })
	defer stopOnCancel()
	timer := time.AfterFunc(s.opts.HandshakeTimeout, func() { s.cancel(errHandshakeTimeout) })
	defer timer.Stop()
	s.handshakeTimer = timer

	transport, err := s.transport()
	if err != nil {
		return s.fail(fmt.Errorf("MCP server %q: cannot start %q: %w; install it, or fix the command", s.name, s.spec.Command, err))
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "toolscope", Version: buildinfo.Version()}, &sdk.ClientOptions{
		Logger: slog.New(sdkLog{Handler: s.logger.Handler(), leftOut: s.sdkLeftOutTool}),
		// Elicitation and sampling are answered by the run whose call is
		// in flight (asks.go); roots are offered when the user named some.
		Capabilities:                  clientCapabilities(s.opts.Roots),
		ToolListChangedHandler:        s.toolsChanged,
		ResourceListChangedHandler:    s.resourcesChanged,
		PromptListChangedHandler:      s.promptsChanged,
		ElicitationHandler:            s.elicit,
		ElicitationCompleteHandler:    s.elicitationComplete,
		CreateMessageWithToolsHandler: s.sample,
	})
	addRoots(client, s.opts.Roots)
	s.session, err = s.handshake(client, transport, protocolVersion)
	if err != nil && s.exitedAtDiscover.Load() && s.ctx.Err() == nil {
		// Some servers of older revisions crash at a request they do not
		// know before initialize; started again, they are asked no
		// such thing.
		s.logger.Info("MCP server exited before it answered server/discover, as some of older revisions do at a request they do not know; starting it again and sending initialize")
		s.proc.stop(s.opts.ShutdownTimeout)
		if transport, err = s.transport(); err == nil {
			s.session, err = s.handshake(client, transport, legacyVersion)
		}
	}
	if err == nil {
		err = s.listTools(s.ctx)
	}
	// From here on only the hub may end the connection. A timer or a
	// context that fired just now is cancelling it, though: wait for that.
	if !timer.Stop() || !stopOnCancel() {
		<-s.ctx.Done()
		if err == nil {
			err = context.Cause(s.ctx)
		}
	}
	if err != nil {
		if signIn := (*SignInError)(nil); errors.As(err, &signIn) {
			s.shutdown(errClosed)
			if errors.Is(err, errSignInNeeded) {
				return s.signInNeeded(signIn)
			}
			return s.fail(signIn) // worded already, for OAuth
		}
		err = s.handshakeError(err)
		s.shutdown(errClosed)
		return s.fail(err)
	}

	protocol := s.session.InitializeResult().ProtocolVersion
	s.tap.protocol.Store(&protocol)
	s.mu.Lock()
	s.state = StateReady
	s.protocol = protocol
	n := len(s.tools)
	s.mu.Unlock()
	s.logger.Info("MCP server connected", "transport", s.spec.transport(), "protocol", protocol, "tools", n)
	go s.watch()
	go s.refreshTools()
	// Its resources and prompts are listed now, off the handshake: a
	// listing that is slow or fails leaves the server and its tools be.
	go s.refreshCatalog()
	return nil
}

// handshake connects client over transport. An HTTP server that is not
// listening yet is asked again for StartWait, more slowly each time.
func (s *server) handshake(client *sdk.Client, transport sdk.Transport, version string) (*sdk.ClientSession, error) {
	giveUp := time.Now().Add(s.opts.StartWait)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		session, err := client.Connect(s.ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err == nil || s.proc != nil || !notListening(err) || time.Now().Add(wait).After(giveUp) {
			return session, err
		}
		s.logger.Info("MCP server not listening yet; asking again", "url", s.spec.URL, "error", err)
		select {
		case <-s.ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// notListening tells whether err says that nothing listens at the
// server's address yet: the connection refused, or the name unknown.
func notListening(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

func (s *server) transport() (sdk.Transport, error) {
	switch s.spec.transport() {
	case TransportHTTP:
		return &sdk.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: s.httpClient(), OAuthHandler: s.oauthHandler()}, nil
	case TransportSSE:
		return &sdk.SSEClientTransport{Endpoint: s.spec.URL, HTTPClient: s.httpClient()}, nil
	}
	p, err := startProcess(s.spec, func(line string) {
		s.log.add(line)
		s.logger.Debug("MCP server stderr", "line", line)
	})
	if err != nil {
		return nil, err
	}
	s.proc = p
	pipes := &sdk.IOTransport{
		Reader: &stdoutFilter{r: bufio.NewReader(p.stdout), c: p.stdout, tap: &s.tap, stray: s.stray},
		Writer: &teeWriter{w: p.stdin, tap: &s.tap},
	}
	return discoverWait{Transport: pipes, wait: s.opts.DiscoverTimeout, exited: &s.exitedAtDiscover, onMiss: func() {
		s.logger.Info("MCP server did not answer server/discover; taking it for one of an older revision and sending initialize", "waited", s.opts.DiscoverTimeout)
	}}, nil
}

func (s *server) httpClient() *http.Client {
	s.http = &tapTransport{base: http.DefaultTransport, headers: s.spec.Headers, tap: &s.tap}
	return &http.Client{Transport: s.http}
}

// stray keeps a line the server printed to stdout that is not JSON-RPC.
func (s *server) stray(line string) {
	s.log.add("stdout: " + line)
	s.mu.Lock()
	first := s.firstStray == ""
	if first {
		s.firstStray = line
	}
	s.mu.Unlock()
	if first {
		s.logger.Warn("MCP server printed something other than JSON-RPC on stdout; servers should log to stderr", "line", line)
	}
}

// handshakeError explains why connecting failed, in terms of what to do.
func (s *server) handshakeError(err error) error {
	cause := context.Cause(s.ctx)
	what := fmt.Sprintf("MCP server %q (%s)", s.name, s.spec.target())
	var why, next string
	switch {
	case s.proc != nil && s.proc.exitedWithin(exitWait(cause)):
		why = fmt.Sprintf("exited during the handshake (%s)", s.proc.exitStatus())
		next = "run the command by hand to see why"
	case errors.Is(cause, errHandshakeTimeout):
		why = fmt.Sprintf("did not complete the MCP handshake within %s", s.opts.HandshakeTimeout)
		next = "check that it is an MCP server; if it is only slow to start (npx or docker fetching it on first use), run it once by hand first"
	case cause != nil:
		return fmt.Errorf("%s: connecting was cancelled: %w", what, cause)
	case s.proc != nil:
		why = fmt.Sprintf("failed the MCP handshake: %v", err)
		next = "check that the command starts an MCP server on stdio"
	default:
		why = fmt.Sprintf("failed the MCP handshake: %v", err)
		next = s.httpAdvice()
	}
	s.mu.Lock()
	stray := s.firstStray
	s.mu.Unlock()
	if stray != "" {
		why += fmt.Sprintf("; it printed %.80q on stdout, which is not JSON-RPC", stray)
	}
	return fmt.Errorf("%s %s; %s%s", what, why, next, s.log.tail())
}

// httpAdvice says what to check when an HTTP server cannot be reached.
func (s *server) httpAdvice() string {
	switch status := s.http.failed.Load(); {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return `it wants credentials: give them as "headers", e.g. "Authorization", in an --mcp-config file`
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		if s.spec.transport() == TransportSSE {
			return fmt.Sprintf("check the URL: SSE servers are usually at %s, and one at %s speaks streamable HTTP, for --mcp", endpoint[TransportSSE], endpoint[TransportHTTP])
		}
		return fmt.Sprintf("check the URL: streamable HTTP servers are usually at %s, and one at %s speaks the older transport, for --mcp-sse", endpoint[TransportHTTP], endpoint[TransportSSE])
	}
	return "check the URL and that the server is running"
}

// exitWait is how long to wait for a stdio server to exit before deciding
// it has not: none when it was stopped for taking too long.
func exitWait(cause error) time.Duration {
	if cause != nil {
		return 0
	}
	return time.Second
}

// listTools fetches every page of the server's tools and keeps those
// toolscope can offer to a model.
func (s *server) listTools(ctx context.Context) error {
	var (
		usable   []*remoteTool
		warnings []string
	)
	s.mu.Lock()
	s.sdkLeftOut = nil
	s.mu.Unlock()
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing its tools: %w", err)
		}
		// The SDK decodes a page of tools once it has read the response
		// whole, and the tap has seen it by then: it records a message
		// before it passes the message's last byte on.
		tool := &remoteTool{server: s, name: t.Name, remote: t, schema: s.tap.schemas.parameters(t)}
		// Checking it as the registry will keeps one unusable tool from
		// failing every other one later.
		if err := tools.Check(tool); err != nil {
			warnings = append(warnings, fmt.Sprintf("tool %q left out: %v", t.Name, err))
			s.logger.Warn("MCP tool left out", "tool", t.Name, "error", err)
			continue
		}
		usable = append(usable, tool)
	}
	s.mu.Lock()
	s.tools, s.warnings = usable, append(s.sdkLeftOut, warnings...)
	s.mu.Unlock()
	return nil
}

// sdkLeftOutTool notes a tool that the SDK left out of a tools/list
// result (one whose x-mcp-header annotations are invalid) as toolscope
// notes those its own checks leave out.
func (s *server) sdkLeftOutTool(tool string, cause any) {
	s.mu.Lock()
	s.sdkLeftOut = append(s.sdkLeftOut, fmt.Sprintf("tool %q left out: %v", tool, cause))
	s.mu.Unlock()
	s.logger.Warn("MCP tool left out", "tool", tool, "error", cause)
}

// sdkLog passes the SDK's log records on, but for its note of a tool it
// left out of tools/list, which it words in its own terms, out of the
// server's warnings: leftOut says it as toolscope does.
type sdkLog struct {
	slog.Handler
	leftOut func(tool string, cause any)
}

func (h sdkLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "excluding tool from tools/list" {
		return h.Handler.Handle(ctx, r)
	}
	var tool string
	var cause any
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "tool":
			tool = a.Value.String()
		case "error":
			cause = a.Value.Any()
		}
		return true
	})
	h.leftOut(tool, cause)
	return nil
}

func (h sdkLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkLog{h.Handler.WithAttrs(attrs), h.leftOut}
}

func (h sdkLog) WithGroup(name string) slog.Handler {
	return sdkLog{h.Handler.WithGroup(name), h.leftOut}
}

// toolsChanged handles notifications/tools/list_changed. The SDK runs
// handlers one at a time, so listing the tools here would hold up every
// other message the server sends; refreshTools does it instead.
func (s *server) toolsChanged(context.Context, *sdk.ToolListChangedRequest) {
	select {
	case s.refresh <- struct{}{}:
	default: // a refresh is already due, and will see this change too
	}
}

func (s *server) refreshTools() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.refresh:
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.opts.Timeout)
		err := s.listTools(ctx)
		cancel()
		if err != nil {
			s.logger.Warn("MCP server announced new tools, but listing them failed; keeping the old list", "error", err)
			continue
		}
		s.logger.Info("MCP server's tools changed", "tools", len(s.currentTools()))
		s.changed()
	}
}

// watch notices the connection ending while nobody asked it to: a crash,
// or a network failure.
func (s *server) watch() {
	err := s.session.Wait()
	defer close(s.ended)
	if s.ctx.Err() != nil {
		return // closed on purpose
	}
	reason := fmt.Sprintf("the connection ended: %v", err)
	if s.proc != nil {
		reason = s.proc.ended()
	}
	s.mu.Lock()
	s.stopReason = reason
	s.mu.Unlock()
	err = s.fail(fmt.Errorf("MCP server %q stopped (%s); its tools are gone until toolscope restarts%s", s.name, reason, s.log.tail()))
	s.logger.Error("MCP server stopped", "error", err)
	s.shutdown(errStopped)
	s.changed()
}

// fail records why the server is unusable, and returns err.
func (s *server) fail(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.err, s.tools = StateFailed, err, nil
	return err
}

// shutdown ends the session and the process, once; cause says why to the
// calls in flight.
func (s *server) shutdown(cause error) {
	s.shutdownOnce.Do(func() {
		s.cancel(cause)
		if s.session != nil {
			_ = s.session.Close()
		}
		if s.proc != nil {
			s.proc.stop(s.opts.ShutdownTimeout)
		}
	})
}

// close shuts the server down for good.
func (s *server) close() {
	s.shutdown(errClosed)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateReady {
		s.state = StateClosed
	}
	s.tools = nil
}

func (s *server) currentTools() []*remoteTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// usable returns the session, or why calls cannot be made.
func (s *server) usable() (*sdk.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateReady:
		return s.session, nil
	case StateFailed:
		return nil, s.err
	}
	return nil, fmt.Errorf("MCP server %q is %s", s.name, s.state)
}

// crashed reports why the connection ended while a call was waiting, once
// the watcher has made sense of it.
func (s *server) crashed(tool string, callErr error) error {
	select {
	case <-s.ended:
	case <-time.After(2 * time.Second):
		return fmt.Errorf("MCP server %q lost the connection during the call to %s: %w", s.name, tool, callErr)
	}
	s.mu.Lock()
	reason := s.stopReason
	s.mu.Unlock()
	return fmt.Errorf("MCP server %q crashed during the call to %s (%s)%s", s.name, tool, reason, s.log.tail())
}
