package runs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tools"
)

// ErrNotAsking is Reply's error for a run that does not wait on that ask:
// none, another, or one answered already; for a finished one, an
// *OverError.
var ErrNotAsking = errors.New("the run does not wait on that question")

// BadReplyError is Reply's error for a reply that does not fit the ask.
type BadReplyError struct{ Err error }

func (e *BadReplyError) Error() string {
	return "the reply does not fit the question: " + e.Err.Error()
}
func (e *BadReplyError) Unwrap() error { return e.Err }

// asking is the server's ask a run waits on a person's answer to (see
// agent.Answerer), set as the event that asks is recorded, as a pause is.
type asking struct {
	waiting *agent.Ask
	resume  chan agent.Reply // takes the one Reply that answers it
}

// record returns e, and when it asks the person, waits on it, until
// timeout from now: e then says until when.
func (a *asking) record(e agent.Event, timeout time.Duration) agent.Event {
	if e.Ask != nil && e.Ask.Waiting {
		waiting := *e.Ask // a copy: the agent's stays as it made it
		waiting.Until = time.Now().Add(timeout)
		e.Ask = &waiting
		a.waiting, a.resume = e.Ask, make(chan agent.Reply, 1)
	}
	return e
}

// Answer implements agent.Answerer: the call waits until [Run.Reply], or
// until the run is cancelled, or cancels the ask when its time is up
// (the pause timeout, as for step mode), for the run to go on.
func (r *Run) Answer(ctx context.Context, _ agent.Ask) agent.Reply {
	r.mu.Lock()
	resume, waiting := r.asking.resume, r.asking.waiting
	r.mu.Unlock()
	if waiting == nil {
		// The run is being stopped: its ask was not recorded.
		return agent.Reply{Action: tools.Cancel, Note: "cancelled: the run was stopped"}
	}
	defer func() {
		r.mu.Lock()
		r.asking = asking{}
		r.mu.Unlock()
	}()
	timeout := time.NewTimer(time.Until(waiting.Until))
	defer timeout.Stop()
	select {
	case reply := <-resume:
		return reply
	case <-ctx.Done():
		return agent.Reply{Action: tools.Cancel, Note: "cancelled: the run was stopped"}
	case <-timeout.C:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asking.waiting == nil {
		return <-resume // Reply took it as the time ran out
	}
	r.asking.waiting = nil
	return agent.Reply{Action: tools.Cancel, Note: fmt.Sprintf("cancelled: nobody answered within %s", ShortDuration(r.limits.PauseTimeout))}
}

// Reply answers the run's ask id with reply. Its error is ErrNotAsking,
// an *OverError, or a *BadReplyError.
func (r *Run) Reply(id int, reply agent.Reply) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.done:
		return &OverError{Reason: r.result.Reason}
	case r.asking.waiting == nil || r.asking.waiting.ID != id:
		return ErrNotAsking
	}
	if err := r.asking.waiting.Check(reply); err != nil {
		return &BadReplyError{Err: err}
	}
	r.asking.resume <- reply
	r.asking.waiting = nil // a second Reply finds the run not asking
	return nil
}
