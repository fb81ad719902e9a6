package mcp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodDiscover is the request a 2026-07-28 client opens with.
const methodDiscover = "server/discover"

// discoverWait bounds the wait for a stdio server's answer to
// server/discover. The 2026-07-28 spec has a client that hears nothing
// back within a reasonable time fall back to initialize: some servers
// of older revisions drop a request they do not know, or any request
// before initialize, without a word, and the SDK would wait for the
// answer until the handshake timed out. Over HTTP every request gets an
// answer, if only an error status, so only stdio needs this.
//
// A server that merely starts slowly (npx fetching it) and answers late
// is not lost: it reads the initialize that follows and answers it, at
// 2025-11-25, and its late answer to server/discover is dropped.
//
// A server that exits instead, as some do at a request before initialize,
// is noted in exited, for the caller to start it again and send
// initialize.
type discoverWait struct {
	sdk.Transport
	wait   time.Duration
	onMiss func()
	exited *atomic.Bool
}

func (t discoverWait) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &probedConn{Connection: conn, wait: t.wait, onMiss: t.onMiss, exited: t.exited, expired: make(map[jsonrpc.ID]bool)}
	c.wake, c.wakeUp = context.WithCancel(context.Background())
	return c, nil
}

// probedConn is a stdio connection whose server/discover request is
// answered with an error of its own once the server has let it wait too
// long. (The stdio connection has none of the SDK's private hooks that
// wrapping an HTTP one would cut.)
type probedConn struct {
	sdk.Connection
	wait   time.Duration
	onMiss func()
	exited *atomic.Bool

	mu      sync.Mutex
	pending *jsonrpc.ID         // the server/discover awaiting its answer
	timer   *time.Timer         // runs out for pending
	expired map[jsonrpc.ID]bool // answered here: the server's late answer is dropped
	wake    context.Context     // done once pending has waited too long
	wakeUp  context.CancelFunc
}

func (c *probedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodDiscover && req.IsCall() {
		c.mu.Lock()
		id := req.ID
		c.pending = &id
		c.timer = time.AfterFunc(c.wait, c.wakeUp)
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *probedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		wake := c.wake
		c.mu.Unlock()
		readCtx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(wake, cancel)
		msg, err := c.Connection.Read(readCtx)
		stop()
		cancel()
		if err != nil && ctx.Err() == nil && wake.Err() != nil {
			if answer := c.giveUp(); answer != nil {
				return answer, nil
			}
			continue // the answer came as the wait ran out: read on
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && c.answered(resp.ID) {
			continue
		}
		if err != nil && ctx.Err() == nil {
			c.mu.Lock()
			if c.pending != nil || len(c.expired) > 0 { // server/discover never answered
				c.exited.Store(true)
			}
			c.mu.Unlock()
		}
		return msg, err
	}
}

// answered notes that the server answered request id, and tells whether
// that answer comes too late, after giveUp answered it.
func (c *probedConn) answered(id jsonrpc.ID) (late bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending != nil && *c.pending == id {
		c.pending = nil
		c.timer.Stop()
	}
	late = c.expired[id]
	delete(c.expired, id)
	return late
}

// giveUp answers the pending server/discover with an error, as a server
// that does not know the method would, so that the SDK falls back to
// initialize; nil if it was answered meanwhile.
func (c *probedConn) giveUp() jsonrpc.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wake, c.wakeUp = context.WithCancel(context.Background())
	if c.pending == nil {
		return nil
	}
	id := *c.pending
	c.pending = nil
	c.expired[id] = true
	if c.onMiss != nil {
		c.onMiss()
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("toolscope: no answer to %s within %s; taking the server for one of an older revision", methodDiscover, c.wait),
	}}
}
