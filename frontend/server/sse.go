package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
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
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderConnection, "keep-alive")
	c.Set("X-Accel-Buffering", "no") // proxies must not hold events back
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		follow(w, run, from, s.cfg.Heartbeat)
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

// follow writes the run's events after seq until the run ends or the
// client goes away. A gone client shows as a failed write, so idle streams
// send a heartbeat comment: that also keeps proxies from closing them.
func follow(w *bufio.Writer, run *runs.Run, seq int, heartbeat time.Duration) {
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		events, changed, done := run.Since(seq)
		for _, e := range events {
			if err := writeEvent(w, e); err != nil {
				return
			}
			seq = e.Seq
		}
		if err := w.Flush(); err != nil || (done && len(events) == 0) {
			return
		}
		if len(events) > 0 {
			continue
		}
		select {
		case <-changed:
		case <-tick.C:
			if _, err := w.WriteString(": heartbeat\n\n"); err != nil {
				return
			}
		}
	}
}

func writeEvent(w *bufio.Writer, e agent.Event) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	// JSON holds no raw newline, so data fits one SSE data line.
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, data)
	return err
}
