package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	// transport is mcp.TransportHTTP, mcp.TransportSSE or
	// transportStateless, the session every 2026-07-28 request shares
	// (stateless.go). A streamable HTTP session and the shared one end
	// when the child stops; an SSE session lasts until its client ends it.
	transport string
	remote    string // the client's address, for the log

	// standalone carries what is not the answer to a request, or tied to
	// one: a GET's stream on streamable HTTP, and everything on SSE.
	standalone *stream

	startOnce sync.Once
	started   chan struct{}  // closed once the child has started, or failed to, or the session ended first
	child     *mcp.Child     // set before started is closed; nil if it did not start
	startErr  error          // why it did not
	conn      sdk.Connection // the child's stdio

	ended   chan struct{} // closed by end
	endOnce sync.Once
	why     string // why it ended; set before ended is closed

	mu         sync.Mutex
	open       int                    // HTTP requests being served
	idle       *time.Timer            // ends the session when no request has been open for IdleTimeout
	over       bool                   // end has begun: no more idle timers
	requests   map[jsonrpc.ID]pending // the client's requests the child has yet to answer
	progress   map[string]jsonrpc.ID  // their progress tokens, as raw JSON
	stopReason string                 // once the child has stopped, or the session ended, the error every request gets
	origins    map[jsonrpc.ID]origin  // the shared session's requests, under the ids the bridge gave them
	nextID     int64                  // the last id the shared session gave
}

// pending is a request of the client's that the child has yet to answer.
type pending struct {
	st    *stream // where its answer and its progress go; nil: the standalone stream
	token string  // its progress token, as raw JSON, or ""
}

func newSession(b *Bridge, id, name, transport, remote string) *session {
	return &session{
		bridge:     b,
		id:         id,
		name:       name,
		logger:     b.opts.Logger,
		transport:  transport,
		remote:     remote,
		standalone: standingStream(),
		started:    make(chan struct{}),
		ended:      make(chan struct{}),
		requests:   make(map[jsonrpc.ID]pending),
		progress:   make(map[string]jsonrpc.ID),
		origins:    make(map[jsonrpc.ID]origin),
	}
}

// enter and leave bracket each HTTP request the session serves: it is
// idle while none is open.
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

// end ends the session, once, for the reason given: its requests return,
// and run stops its child.
func (s *session) end(why string) {
	s.endOnce.Do(func() {
		s.why = why
		s.bridge.forget(s)
		s.mu.Lock()
		s.over = true
		if s.stopReason == "" {
			s.stopReason = "toolscope mcp bridge: the session has ended: " + why
		}
		if s.idle != nil {
			s.idle.Stop()
		}
		s.mu.Unlock()
		s.startOnce.Do(func() { close(s.started) }) // no child, if none has started
		close(s.ended)
	})
}

// fromClient passes the client's messages to the child, starting the
// child at the first. The answers to requests go on st (nil: the
// standalone stream).
func (s *session) fromClient(msgs []jsonrpc.Message, st *stream) {
	s.startOnce.Do(s.start)
	for _, msg := range msgs {
		if s.transport == transportStateless {
			if msg = s.own(msg); msg == nil {
				continue
			}
		}
		if reason := s.admit(msg, st); reason != "" {
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				s.refuse(req.ID, st, reason)
			}
			continue
		}
		if s.conn != nil { // else it could not start, which run answers
			// A child gone is heard of by toClient, and its requests
			// answered by run.
			_ = s.conn.Write(context.Background(), msg)
		}
	}
}

func (s *session) start() {
	defer close(s.started)
	child, err := mcp.StartChild(s.bridge.spec, s.stderr)
	if err != nil {
		s.startErr = err
		return
	}
	s.child = child
	s.conn, _ = child.Transport().Connect(context.Background()) // an IOTransport's Connect cannot fail
	s.logger.Info(s.name+" started", "transport", s.transport, "client", s.remote, "pid", child.PID())
}

// run waits for the child, passes its messages to the client until the
// session or the child ends, then stops it.
func (s *session) run() {
	defer s.bridge.wg.Done()
	<-s.started
	if s.child == nil {
		if s.startErr != nil {
			s.serverStopped(fmt.Sprintf("cannot start %s: %v", s.command(), s.startErr))
		}
		<-s.ended
		if s.startErr != nil {
			s.logger.Info(s.name + " ended: " + s.why)
		}
		return
	}
	var readErr error
	childGone := make(chan struct{})
	go func() {
		readErr = s.toClient()
		close(childGone)
	}()
	select {
	case <-s.ended:
	case <-childGone:
		gone := s.child.HowEnded()
		if !errors.Is(readErr, io.EOF) {
			gone = fmt.Sprintf("it wrote what is not JSON-RPC: %v", readErr)
		}
		s.serverStopped(fmt.Sprintf("the MCP server %s stopped before it answered (%s)%s", s.command(), gone, s.child.Tail()))
	}
	s.child.Stop(s.bridge.opts.ShutdownTimeout)
	s.conn.Close() // ends the reading of its stdout, whatever state the child left it in
	<-childGone
	<-s.ended // an SSE session outlives its child, until its client leaves
	s.logger.Info(s.name+" ended: "+s.why, "pid", s.child.PID())
}

// serverStopped answers the requests the server left unanswered, and
// every request after them, with an error saying why. A streamable HTTP
// session ends then: a 404 tells its client to start a new one. An SSE
// session lasts until its client closes the stream, since clients that
// see a stream end stop reading it, and may miss the errors before the
// end.
func (s *session) serverStopped(why string) {
	s.mu.Lock()
	reason := "toolscope mcp bridge: " + why
	s.stopReason = reason
	left := s.requests
	s.requests = make(map[jsonrpc.ID]pending)
	clear(s.progress)
	s.mu.Unlock()
	for id, p := range left {
		s.refuse(id, p.st, reason)
	}
	short, _, _ := strings.Cut(why, ";") // the server's last output is in the log already
	if s.transport != mcp.TransportSSE {
		s.end(short)
		return
	}
	s.logger.Info(s.name + ": " + short + "; the session lasts until the client closes its stream")
}

// refuse answers request id, whose answer goes on st, with an error,
// under the id its client gave it.
func (s *session) refuse(id jsonrpc.ID, st *stream, message string) {
	s.mu.Lock()
	if o, ok := s.origins[id]; ok {
		delete(s.origins, id)
		id = o.id
	}
	s.mu.Unlock()
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: message}}
	s.send(resp, st, true)
}

// toClient passes the child's messages to the client until the child
// closes its stdout, or writes something that is not JSON-RPC.
func (s *session) toClient() error {
	for {
		msg, err := s.conn.Read(context.Background())
		if err != nil {
			return err
		}
		msg, st, answers, ok := s.route(msg)
		switch {
		case !ok:
			s.logger.Debug(s.name + ": the server answered a request it was not asked, or was asked and then told to drop")
		case st == nil && s.transport == transportStateless:
			s.unrouted(msg)
		default:
			s.send(msg, st, answers)
		}
	}
}

// send queues msg on st, or the standalone stream if st is nil.
func (s *session) send(msg jsonrpc.Message, st *stream, answers bool) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		s.logger.Warn(s.name+": a message could not be encoded", "error", err)
		return
	}
	if st == nil {
		st, answers = s.standalone, false
	}
	if st.push(data, answers) {
		s.logger.Warn(fmt.Sprintf("%s: the client has not read the last %d MB its server sent; the oldest are dropped", s.name, maxQueued>>20))
	}
}

// route says which stream carries a message of the child's: the answer
// to a request goes on that request's stream, progress on the stream of
// the request it reports on, and the rest (notifications, the child's
// own requests) on the standalone stream, since stdio says nothing of
// which request they belong to (on the shared session, toClient hands
// them to unrouted instead). On the shared session, out carries the
// id or progress token the client gave (see restore). ok is false for an
// answer to a request that is not waiting for one.
func (s *session) route(msg jsonrpc.Message) (out jsonrpc.Message, st *stream, answers, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out = s.restore(msg)
	switch msg := msg.(type) {
	case *jsonrpc.Response:
		p, ok := s.requests[msg.ID]
		s.forget(msg.ID)
		return out, p.st, true, ok
	case *jsonrpc.Request:
		if msg.Method == "notifications/progress" {
			if id, tied := s.progress[progressToken(msg.Params, false)]; tied {
				return out, s.requests[id].st, false, true
			}
		}
	}
	return out, nil, false, true
}

// admit notes a request of the client's that the child is to answer on
// st, and forgets one the client cancelled. Once the session can no longer
// answer, it notes nothing and returns why.
func (s *session) admit(msg jsonrpc.Message, st *stream) (stopReason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case s.stopReason != "" || !ok:
	case req.IsCall():
		p := pending{st: st, token: progressToken(req.Params, true)}
		s.requests[req.ID] = p
		if p.token != "" {
			s.progress[p.token] = req.ID
		}
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) != nil {
			break
		}
		id, err := jsonrpc.MakeID(params.RequestID)
		if p, waiting := s.requests[id]; err == nil && waiting {
			s.forget(id)
			if p.st != nil {
				p.st.answerWillNotCome() // the child need not answer, and the client waits no more
			}
		}
	}
	return s.stopReason
}

// forget forgets request id and its progress token; s.mu is held.
func (s *session) forget(id jsonrpc.ID) {
	if token := s.requests[id].token; token != "" && s.progress[token] == id {
		delete(s.progress, token)
	}
	delete(s.requests, id)
	delete(s.origins, id)
}

// progressToken is the raw JSON progress token in a request's params
// (inMeta: under _meta, as a request carries it) or a progress
// notification's, or "".
func progressToken(params json.RawMessage, inMeta bool) string {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if inMeta {
		return string(p.Meta.ProgressToken)
	}
	return string(p.ProgressToken)
}

// stderr logs a line the child wrote to stderr, under the session's name.
func (s *session) stderr(line string) {
	s.logger.Info(s.name + ": " + line)
}

// command is the child's command line, quoted, for messages.
func (s *session) command() string {
	return fmt.Sprintf("%q", strings.Join(append([]string{s.bridge.spec.Command}, s.bridge.spec.Args...), " "))
}
