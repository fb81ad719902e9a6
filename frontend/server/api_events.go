package server

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gofiber/fiber/v2"
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
	// A run can be silent for minutes, and a gone viewer shows only as a
	// failed write: heartbeats find it.
	s.serveSSE(c, s.cfg.Heartbeat, nil, func(ctx context.Context, out *sseWriter) {
		for e := range run.Encoded(ctx, from) {
			out.event(e)
		}
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
