package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools/mcp"
)

// session is one client's MCP session and the child that serves it.
type session struct {
	bridge *Bridge
	id     string // its key: the Mcp-Session-Id, or SSE's sessionid
	name   string // "session 3", for the log
	logger *slog.Logger
	http   http.Handler   // the SDK's transport: it serves the session's HTTP requests
	ready  chan struct{}  // closed by connect, once client is set
	client sdk.Connection // the transport's connection: the client's messages, and the way to it
	// endsWithServer ends the session when its child stops (streamable
	// HTTP); otherwise it lasts until the client ends it (SSE).
	endsWithServer bool

	ended   chan struct{} // closed by end
	endOnce sync.Once
	why     string // why it ended; set before ended is closed

	mu      sync.Mutex
	open    int                     // HTTP requests being served
	idle    *time.Timer             // ends the session when no request has been open for IdleTimeout
	over    bool                    // end has begun: no more idle timers
	pending map[jsonrpc.ID]struct{} // the client's requests the child has yet to answer
	stopped string                  // once the child has stopped, the error every request gets
}

func newSession(b *Bridge, id, name string, h http.Handler) *session {
	return &session{
		bridge:  b,
		id:      id,
		name:    name,
		logger:  b.opts.Logger,
		http:    h,
		ready:   make(chan struct{}),
		ended:   make(chan struct{}),
		pending: make(map[jsonrpc.ID]struct{}),
	}
}

// connect gives the session its client's connection, unless the session
// has ended already: then it closes conn and returns false.
func (s *session) connect(conn sdk.Connection) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over {
		conn.Close()
		return false
	}
	s.client = conn
	close(s.ready)
	return true
}

// serve serves one of the session's HTTP requests. The session is idle
// while none is open.
func (s *session) serve(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.ready:
	case <-s.ended:
		http.Error(w, "Not found: the session has ended", http.StatusNotFound)
		return
	}
	s.enter()
	defer s.leave()
	s.http.ServeHTTP(w, r)
}

func (s *session) enter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open++
	if s.idle != nil {
		s.idle.Stop()
	}
}

func (s *session) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open--; s.open > 0 || s.over {
		return
	}
	timeout := s.bridge.opts.IdleTimeout
	if s.idle == nil {
		s.idle = time.AfterFunc(timeout, func() { s.end(fmt.Sprintf("no request for %s", timeout)) })
	} else {
		s.idle.Reset(timeout)
	}
}

// end ends the session, once, for the reason given: its client's side
// closes at once, which ends its requests and, through run, its child.
func (s *session) end(why string) {
	s.endOnce.Do(func() {
		s.why = why
		s.bridge.forget(s)
		s.mu.Lock()
		s.over = true
		if s.idle != nil {
			s.idle.Stop()
		}
		if s.client != nil {
			s.client.Close()
		}
		s.mu.Unlock()
		close(s.ended)
	})
}

// run starts the child at the client's first message, passes messages
// both ways until the session or the child ends, then stops the child.
func (s *session) run(transport, remote string) {
	defer s.bridge.wg.Done()
	select {
	case <-s.ready:
	case <-s.ended:
		return
	}
	ctx := context.Background()
	first, err := s.client.Read(ctx)
	if err != nil {
		s.end("the client sent nothing")
		return
	}
	child, err := mcp.StartChild(s.bridge.spec, s.stderr)
	if err != nil {
		s.admit(first)
		s.serverStopped(ctx, fmt.Sprintf("cannot start %s: %v", s.command(), err))
		s.toChild(ctx, nil) // answers every request with the error, until the session ends
		s.logger.Info(s.name + " ended: " + s.why)
		return
	}
	s.logger.Info(s.name+" started", "transport", transport, "client", remote, "pid", child.PID())
	conn, _ := child.Transport().Connect(ctx) // an IOTransport's Connect cannot fail

	s.pass(ctx, first, conn)
	var toChild sync.WaitGroup
	toChild.Go(func() { s.toChild(ctx, conn) })
	var readErr error
	childGone := make(chan struct{})
	go func() {
		readErr = s.toClient(ctx, conn)
		close(childGone)
	}()

	select {
	case <-s.ended:
	case <-childGone:
		gone := child.Ended()
		if !errors.Is(readErr, io.EOF) {
			gone = fmt.Sprintf("it wrote what is not JSON-RPC: %v", readErr)
		}
		s.serverStopped(ctx, fmt.Sprintf("the MCP server %s stopped before it answered (%s)%s", s.command(), gone, child.Tail()))
	}
	child.Stop(s.bridge.opts.ShutdownTimeout)
	conn.Close() // ends the reading of its stdout, whatever state the child left it in
	<-childGone
	toChild.Wait()
	s.logger.Info(s.name+" ended: "+s.why, "pid", child.PID())
}

// serverStopped answers the requests the server left unanswered, and
// every request after them, with an error saying why. A streamable HTTP
// session ends then: a 404 tells its client to start a new one. An SSE
// session lasts until its client closes the stream, since clients that
// see a stream end stop reading it, and may miss the errors before the
// end.
func (s *session) serverStopped(ctx context.Context, why string) {
	s.mu.Lock()
	s.stopped = "toolscope mcp bridge: " + why
	ids := make([]jsonrpc.ID, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	clear(s.pending)
	s.mu.Unlock()
	for _, id := range ids {
		s.refuse(ctx, id, s.stopped)
	}
	short, _, _ := strings.Cut(why, ";") // the server's last output is in the log already
	if s.endsWithServer {
		s.end(short)
		return
	}
	s.logger.Info(s.name + ": " + short + "; the session lasts until the client closes its stream")
}

// refuse answers request id with an error.
func (s *session) refuse(ctx context.Context, id jsonrpc.ID, message string) {
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}}
	if err := s.client.Write(ctx, resp); err != nil {
		s.logger.Debug(s.name+": the error could not be delivered", "error", err)
	}
}

// toChild passes the client's messages to the child until the session
// ends.
func (s *session) toChild(ctx context.Context, child sdk.Connection) {
	for {
		msg, err := s.client.Read(ctx)
		if err != nil {
			return // the session ended
		}
		s.pass(ctx, msg, child)
	}
}

// pass passes a message of the client's to the child; once the child has
// stopped, it answers the client's requests with why instead.
func (s *session) pass(ctx context.Context, msg jsonrpc.Message, child sdk.Connection) {
	if stopped := s.admit(msg); stopped != "" {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			s.refuse(ctx, req.ID, stopped)
		}
		return
	}
	// If the child is gone, run hears of it from toClient, and answers
	// this request with the others left.
	_ = child.Write(ctx, msg)
}

// toClient passes the child's messages to the client until the child
// closes its stdout, or writes something that is not JSON-RPC.
func (s *session) toClient(ctx context.Context, child sdk.Connection) error {
	for {
		msg, err := child.Read(ctx)
		if err != nil {
			return err
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			s.settle(resp.ID)
		}
		// A message the client can no longer receive, such as the answer
		// to a request whose HTTP request has gone, is the client's loss,
		// not the session's end.
		if err := s.client.Write(ctx, msg); err != nil && !s.hasEnded() {
			s.logger.Debug(s.name+": a message from the server could not be delivered", "error", err)
		}
	}
}

func (s *session) hasEnded() bool {
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// admit notes a request of the client's that the child is to answer, and
// forgets one the client cancelled, which the child need not answer. Once
// the child has stopped, it notes nothing and returns why.
func (s *session) admit(msg jsonrpc.Message) (stopped string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case s.stopped != "" || !ok:
	case req.IsCall():
		s.pending[req.ID] = struct{}{}
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
				delete(s.pending, id)
			}
		}
	}
	return s.stopped
}

func (s *session) settle(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
}

// stderr logs a line the child wrote to stderr, under the session's name.
func (s *session) stderr(line string) {
	s.logger.Info(s.name + ": " + line)
}

// command is the child's command line, quoted, for messages.
func (s *session) command() string {
	return fmt.Sprintf("%q", strings.Join(append([]string{s.bridge.spec.Command}, s.bridge.spec.Args...), " "))
}
