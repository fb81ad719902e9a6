package server

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/runs"
)

// streamEvents sends a run's events as Server-Sent Events: `id:` is the
// event's sequence number, `event:` its type, `data:` its JSON. A client
// that reconnects with Last-Event-ID gets the events after that one and
// then the live tail. The stream ends after the run's last event.
func (s *Server) streamEvents(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	from, err := lastEventID(c)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	if n := run.Recorded(); from > n {
		// A stream that ended at once would look like a finished run.
		return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("Last-Event-ID %d is past the run's last event, %d", from, n))
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderConnection, "keep-alive")
	c.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	conn, timeout := c.Context().Conn(), s.cfg.WriteTimeout
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		stream(w, run, from, s.cfg.Heartbeat, func() {
			// fasthttp sets one write deadline for a whole response, which
			// would cut every stream after WriteTimeout; renewed before each
			// frame instead, it drops only a viewer that stops reading.
			_ = conn.SetWriteDeadline(time.Now().Add(timeout))
		})
	})
	return nil
}

// lastEventID reads where a client resumes: the Last-Event-ID header that
// EventSource sends on reconnect, or ?last_event_id= for clients that
// cannot set headers.
func lastEventID(c *fiber.Ctx) (int, error) {
	v := c.Get("Last-Event-ID")
	if v == "" {
		v = c.Query("last_event_id")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("Last-Event-ID %q is not an event sequence number", v)
	}
	return n, nil
}

// stream writes the run's events after seq until the run ends or the
// client goes away.
//
// A gone client shows only as a failed write, and a run can be silent for
// minutes, so a second goroutine sends heartbeats (sseWriter.beat) through
// the same writer. Whichever write fails first cancels the context the
// events are ranged with: the iteration then ends at once, even while it
// waits for the run, and runs.Run.Events needs to know nothing of
// heartbeats.
//
// renew is called before each frame, to give its write a fresh deadline.
func stream(w *bufio.Writer, run *runs.Run, seq int, heartbeat time.Duration, renew func()) {
	ctx, cancel := context.WithCancel(context.Background())
	out := newSSEWriter(w, renew, cancel)
	var wg sync.WaitGroup
	wg.Go(func() { out.beat(ctx, heartbeat) })
	defer wg.Wait() // fasthttp reuses w once this function returns
	defer cancel()
	for e := range run.Encoded(ctx, seq) {
		out.event(e)
	}
}
