package server

import (
	"bufio"
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/toolscope/toolscope/runs"
)

// sseWriter writes Server-Sent Events to one client: the page's run
// events (event), an eval's progress (named), OpenAI's chat.completion.chunk frames (data) and
// heartbeat comments (beat). Every frame is flushed at once, so that it
// leaves before the next is ready.
//
// A gone client shows only as a failed write: the first one calls gone,
// and the writes after it are skipped. The writer is safe for concurrent
// use, so that a heartbeat goroutine may share it with the one writing
// events.
type sseWriter struct {
	gone  func() // called on the first failed write
	renew func() // called before each write, to give it a fresh deadline

	mu   sync.Mutex
	w    *bufio.Writer
	dead bool      // a write failed
	last time.Time // when a frame was last sent
}

func newSSEWriter(w *bufio.Writer, renew, gone func()) *sseWriter {
	return &sseWriter{w: w, renew: renew, gone: gone, last: time.Now()}
}

// event sends e: `id:` is its sequence number, `event:` its type, `data:`
// its JSON, which holds no raw newline and so fits one data line.
func (s *sseWriter) event(e runs.Encoded) { s.named(e.Seq, string(e.Type), e.JSON) }

// named sends a frame of an id, an event type and one data line (data
// must hold no newline): a run's events, an eval's progress. The frame
// is written in pieces: nothing is allocated per event and viewer.
func (s *sseWriter) named(id int, typ string, data []byte) {
	s.frame(func() {
		s.w.WriteString("id: ")
		s.w.Write(strconv.AppendInt(s.w.AvailableBuffer(), int64(id), 10))
		s.w.WriteString("\nevent: ")
		s.w.WriteString(typ)
		s.w.WriteString("\ndata: ")
		s.w.Write(data)
		s.w.WriteString("\n\n")
	})
}

// data sends a frame of one data line and no event type: what OpenAI's
// streaming API sends. b must hold no newline.
func (s *sseWriter) data(b []byte) {
	s.frame(func() {
		s.w.WriteString("data: ")
		s.w.Write(b)
		s.w.WriteString("\n\n")
	})
}

var heartbeatComment = []byte(": heartbeat\n\n")

// beat sends a heartbeat comment each time the stream has been idle for
// every, until ctx ends. A run can be silent for minutes (a slow tool, a
// model loading): the comment keeps proxies from closing the stream, and
// it is the write that finds a client gone.
func (s *sseWriter) beat(ctx context.Context, every time.Duration) {
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		idle := time.Since(s.last)
		s.mu.Unlock()
		if idle >= every {
			s.frame(func() { s.w.Write(heartbeatComment) })
			idle = 0
		}
		t.Reset(every - idle)
	}
}

// frame writes one frame with write and flushes it, unless the client is
// gone. bufio.Writer keeps its first error, so the flush's check covers
// the writes before it.
func (s *sseWriter) frame(write func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return
	}
	s.renew()
	write()
	if s.w.Flush() != nil {
		s.dead = true
		s.gone()
	}
	s.last = time.Now()
}

// serveSSE makes c's response an event stream that send writes, with a
// heartbeat every heartbeat while it is silent (none at 0). send's ctx
// ends when the client has gone, which shows only as a failed write: a
// run's events, ranged with ctx, then stop at once, even while they wait.
// gone, unless nil, is called then too.
func (s *Server) serveSSE(c *fiber.Ctx, heartbeat time.Duration, gone func(), send func(ctx context.Context, out *sseWriter)) {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderConnection, "keep-alive")
	c.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	conn, timeout := c.Context().Conn(), s.cfg.WriteTimeout
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithCancel(context.Background())
		// fasthttp sets one write deadline for a whole response, which
		// would cut every stream after WriteTimeout; renewed before each
		// frame instead, it drops only a client that stops reading.
		renew := func() { _ = conn.SetWriteDeadline(time.Now().Add(timeout)) }
		out := newSSEWriter(w, renew, func() {
			if gone != nil {
				gone()
			}
			cancel()
		})
		var wg sync.WaitGroup
		if heartbeat > 0 {
			wg.Go(func() { out.beat(ctx, heartbeat) })
		}
		defer wg.Wait() // fasthttp reuses w once this function returns
		defer cancel()
		send(ctx, out)
	})
}
