package runs

import (
	"context"
	"errors"
	"time"

	"github.com/toolscope/toolscope/agent"
)

// ErrNotPaused is Continue's error for a run that waits on nothing: one
// not in step mode, or between pauses; for a finished one, an *OverError.
var ErrNotPaused = errors.New("the run is not paused")

// OverError is Continue's error for a run that has finished, which will
// never wait again; errors.Is(err, ErrNotPaused) holds for it.
type OverError struct {
	Reason agent.Reason // how the run ended
}

func (e *OverError) Error() string {
	how, ok := endedHow[e.Reason]
	if !ok {
		how = "it ended: " + string(e.Reason)
	}
	return "the run is over: " + how
}

// Is reports whether target is ErrNotPaused.
func (e *OverError) Is(target error) bool { return target == ErrNotPaused }

// endedHow says how a run ended, by its Reason.
var endedHow = map[agent.Reason]string{
	agent.Answered:  "it answered",
	agent.Returned:  "it returned its tool calls to the client",
	agent.MaxRounds: "it reached its round limit",
	agent.Cancelled: "it was cancelled",
	agent.CutOff:    "its reply reached the model's context or token limit",
	agent.Failed:    "it failed",
}

// pause is what a run in step mode waits on. It is set as the Paused
// event is recorded, under the same lock, so that a viewer who sees the
// event can always continue the run.
type pause struct {
	waiting *agent.Pause
	resume  chan agent.Edit // takes the one Edit that ends the pause
}

// record returns e, and when it is a Paused event, waits on it, until
// timeout from now: e then says until when.
func (p *pause) record(e agent.Event, timeout time.Duration) agent.Event {
	if e.Type == agent.Paused {
		waiting := *e.Pause // a copy: the agent's stays as it made it
		waiting.Until = time.Now().Add(timeout)
		e.Pause = &waiting
		p.waiting, p.resume = e.Pause, make(chan agent.Edit, 1)
	}
	return e
}

// Step implements agent.Stepper: the run waits until [Run.Continue], or
// until it is cancelled, or stopped when its pause times out.
func (r *Run) Step(ctx context.Context, _ agent.Pause) agent.Edit {
	r.mu.Lock()
	resume, waiting := r.pause.resume, r.pause.waiting
	r.mu.Unlock()
	if resume == nil {
		return agent.Edit{} // the run is being stopped: its pause was not recorded
	}
	defer func() {
		r.mu.Lock()
		r.pause = pause{}
		r.mu.Unlock()
	}()
	if waiting == nil { // Continue came first, as the event reached a viewer
		return <-resume
	}
	timeout := time.NewTimer(time.Until(waiting.Until))
	defer timeout.Stop()
	select {
	case e := <-resume:
		return e
	case <-ctx.Done():
		return agent.Edit{}
	case <-timeout.C:
		return r.timeOut(waiting, resume)
	}
}

// timeOut stops the run whose pause timed out, unless Continue took the
// pause as the time ran out: its Edit then goes on.
func (r *Run) timeOut(waiting *agent.Pause, resume <-chan agent.Edit) agent.Edit {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pause.waiting == nil {
		return <-resume
	}
	r.pause.waiting = nil // a Continue from now on finds the run not paused
	r.stopped = &PauseTimeoutError{Timeout: r.limits.PauseTimeout, At: waiting.At, Round: waiting.Round}
	r.untold = &agent.Event{Type: agent.Error, Round: waiting.Round, Error: r.stopped.Error()}
	r.cancel()
	return agent.Edit{}
}

// Continue ends the run's pause with e: the zero Edit goes on unchanged.
// Its error is ErrNotPaused, an *OverError, or an *agent.EditError when e
// does not fit what the run waits on.
func (r *Run) Continue(e agent.Edit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.done:
		return &OverError{Reason: r.result.Reason}
	case r.pause.waiting == nil:
		return ErrNotPaused
	}
	if err := r.pause.waiting.Check(e); err != nil {
		return err
	}
	r.pause.resume <- e
	r.pause.waiting = nil // a second Continue finds the run not paused
	return nil
}

// status is "running", "paused", or how the run ended; r.mu is held.
func (r *Run) status() string {
	switch {
	case r.done:
		return string(r.result.Reason)
	case r.pause.waiting != nil:
		return "paused"
	}
	return "running"
}
