package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
)

// The model pulled from the page. When the auto backend fell back to the
// demo model, the page offers to pull the model it wanted (POST
// /api/pull); Ollama downloads it, its progress streams as Server-Sent
// Events (GET /api/pull/events), a person may cancel it (POST
// /api/pull/cancel), and once it is pulled the engine settles again
// (engine.Engine.Resettle), so that the next runs use the model, with no
// restart. The pull belongs to the server, not to a request: a reloaded
// page finds it again (GET /api/pull). Only the operator may pull:
// authorize refuses a viewer every route here.

// Pull states, as pullStatus.State gives them.
const (
	pullPulling   = "pulling"
	pullPulled    = "pulled"
	pullFailed    = "failed"
	pullCancelled = "cancelled"
)

// The event types of GET /api/pull/events.
const (
	pullProgressEvent = "progress"
	pullFinishedEvent = "pull_finished"
)

const pullEventsPath = "/api/pull/events"

// pulls holds the server's pull: one at a time, the latest kept until the
// next starts.
type pulls struct {
	mu      sync.Mutex
	current *pullRun
	running sync.WaitGroup // the pull's goroutine, which stop waits for
}

// start makes p the current pull, unless one is under way, which it
// returns instead.
func (ps *pulls) start(p *pullRun) (running *pullRun) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.current != nil && !ps.current.status().done() {
		return ps.current
	}
	ps.current = p
	return nil
}

// latest is the current pull, or nil before the first.
func (ps *pulls) latest() *pullRun {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.current
}

// stop cancels the pull under way, if any, and waits for it to end (on
// shutdown: it must not switch an engine that is closing).
func (ps *pulls) stop() {
	if p := ps.latest(); p != nil {
		p.cancel()
	}
	ps.running.Wait()
}

// pullRun is one pull: its progress as Ollama reports it, then how it
// ended.
type pullRun struct {
	cancel context.CancelFunc

	mu      sync.Mutex
	st      pullStatus
	changed chan struct{} // closed at each change, then replaced
}

// pullStatus is GET /api/pull, and the data of each event of its stream.
type pullStatus struct {
	Model string `json:"model"`
	State string `json:"state"`
	// Seq counts the changes: it is the event's id.
	Seq int `json:"seq"`
	// Status is Ollama's word for the step, and Text the progress as a
	// person reads it: "1.1 GB of 2.5 GB, 12 MB/s, 1m54s left".
	Status         string `json:"status,omitempty"`
	Text           string `json:"text,omitempty"`
	Completed      int64  `json:"completed"`
	Total          int64  `json:"total"`
	BytesPerSecond int64  `json:"bytes_per_second"`
	SecondsLeft    int64  `json:"seconds_left"`
	// Problem and Fix say why a pull failed; after a pull, why the model
	// is still not in use, if it is not.
	Problem string   `json:"problem,omitempty"`
	Fix     *llm.Fix `json:"fix,omitempty"`
	// Switched says that runs now use the model, the demo model gone.
	Switched bool   `json:"switched"`
	Events   string `json:"events"`
}

func (st pullStatus) done() bool { return st.State != pullPulling }

func newPullRun(model string, cancel context.CancelFunc) *pullRun {
	return &pullRun{cancel: cancel, changed: make(chan struct{}),
		st: pullStatus{Model: model, State: pullPulling, Text: "asking Ollama", Events: pullEventsPath}}
}

// change applies f to the status and tells the streams.
func (p *pullRun) change(f func(*pullStatus)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.st)
	p.st.Seq++
	close(p.changed)
	p.changed = make(chan struct{})
}

// progress records what Ollama reported.
func (p *pullRun) progress(pr ollama.Progress) {
	p.change(func(st *pullStatus) {
		st.Status, st.Text = pr.Status, pr.String()
		st.Completed, st.Total = pr.Completed, pr.Total
		st.BytesPerSecond, st.SecondsLeft = int64(pr.Speed), int64(math.Ceil(pr.Left.Seconds()))
	})
}

// finish records how the pull ended: err from the pull, and, when it
// succeeded, the fallback still in force after settling again.
func (p *pullRun) finish(err error, cancelled bool, still *engine.Fallback) {
	p.change(func(st *pullStatus) {
		st.BytesPerSecond, st.SecondsLeft = 0, 0
		switch {
		case cancelled:
			st.State = pullCancelled
		case err != nil:
			st.State = pullFailed
			st.Problem, st.Fix = err.Error(), nil
			var le *llm.Error
			if errors.As(err, &le) {
				st.Problem, st.Fix = le.Problem, le.Fix
			}
		default:
			st.State, st.Switched = pullPulled, still == nil
			if still != nil {
				st.Problem, st.Fix = still.Problem(), still.Fix()
			}
		}
	})
}

// watch returns the pull as it stands, and a channel closed at its next
// change.
func (p *pullRun) watch() (pullStatus, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st, p.changed
}

// status is the pull as it stands.
func (p *pullRun) status() pullStatus {
	st, _ := p.watch()
	return st
}

// startPull answers POST /api/pull: it starts pulling the model the auto
// backend fell back from (201), or answers the pull under way (200).
func (s *Server) startPull(c *fiber.Ctx) error {
	if len(c.Body()) > 0 {
		// The model is the one toolscope was started for: a request does
		// not choose what the server downloads.
		if err := decodeStrict(c.Body(), &struct{}{}, "pull request (it takes no fields)", "{}"); err != nil {
			return fiber.NewError(fiber.StatusBadRequest, err.Error())
		}
	}
	e := s.cfg.Engine
	f := e.Fallback()
	if f == nil {
		info := e.Backend().Info()
		return fiber.NewError(fiber.StatusConflict, "there is nothing to pull: toolscope runs "+info.Model+" on "+info.Backend)
	}
	b, err := ollama.New(ollama.Config{Host: e.Settings().OllamaHost, Model: f.Model})
	if err != nil {
		return err // Start read this address already
	}
	ctx, cancel := context.WithCancel(context.Background()) // the pull outlives the request
	p := newPullRun(f.Model, cancel)
	if running := s.pulls.start(p); running != nil {
		cancel()
		return writeJSON(c, fiber.StatusOK, running.status())
	}
	s.pulls.running.Go(func() {
		defer cancel()
		err := b.Pull(ctx, p.progress)
		var still *engine.Fallback
		if err == nil {
			still = e.Resettle(context.Background())
		}
		// A Cancel that comes while the engine switches is too late: the
		// pull succeeded, and runs use the model.
		p.finish(err, err != nil && ctx.Err() != nil, still)
	})
	return writeJSON(c, fiber.StatusCreated, p.status())
}

// latestPull answers GET /api/pull: the server's pull, under way or done,
// or 204 before the first, so that a reloaded page finds it again.
func (s *Server) latestPull(c *fiber.Ctx) error {
	p := s.pulls.latest()
	if p == nil {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return writeJSON(c, fiber.StatusOK, p.status())
}

// cancelPull answers POST /api/pull/cancel: 202 while the pull ends, 409
// when none is under way.
func (s *Server) cancelPull(c *fiber.Ctx) error {
	p := s.pulls.latest()
	if p == nil || p.status().done() {
		return fiber.NewError(fiber.StatusConflict, "no pull is under way")
	}
	p.cancel()
	return writeJSON(c, fiber.StatusAccepted, p.status())
}

// streamPull answers GET /api/pull/events: the pull's status as it
// changes, a progress event each time (`id:` counts the changes), then
// pull_finished, and the stream ends. A stream opened afresh starts with
// the status as it stands: a pull is a state, not a log.
func (s *Server) streamPull(c *fiber.Ctx) error {
	p := s.pulls.latest()
	if p == nil {
		return fiber.NewError(fiber.StatusNotFound, "no pull has started: POST /api/pull starts one")
	}
	s.serveSSE(c, s.cfg.Heartbeat, nil, func(ctx context.Context, out *sseWriter) {
		sent := -1
		for {
			st, changed := p.watch()
			if st.Seq != sent {
				sent = st.Seq
				typ := pullProgressEvent
				if st.done() {
					typ = pullFinishedEvent
				}
				b, _ := json.Marshal(st) // plain fields
				out.named(st.Seq, typ, b)
			}
			if st.done() {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	})
	return nil
}
