package agent

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errToolTimeout ends a call whose tool ran out of time.
var errToolTimeout = errors.New("the tool timeout passed")

// toolClock is a call's tool timeout, which stands still while a person
// answers what the tool's server asks (see asker.answer): their time is
// not the tool's, and the pause timeout bounds it instead.
type toolClock struct {
	mu    sync.Mutex
	timer *time.Timer   // ends the call's context at the timeout
	left  time.Duration // what is left of the timeout while held
	since time.Time     // when the clock last started running
	holds int           // asks that wait on the person
	done  bool          // the call is over
}

// start runs the clock for d: the context returned ends when ctx does,
// or, with cause errToolTimeout, once the clock has run d. stop ends the
// context and the clock.
func (c *toolClock) start(ctx context.Context, d time.Duration) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.left, c.since = d, time.Now()
	c.timer = time.AfterFunc(d, func() { cancel(errToolTimeout) })
	return ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.done = true
		c.timer.Stop()
		cancel(context.Canceled)
	}
}

// hold stops the clock until the function it returns is called. A clock
// not started (no call) or already run out is left as it is.
func (c *toolClock) hold() (release func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer == nil {
		return func() {}
	}
	c.holds++
	if c.holds == 1 {
		if c.timer.Stop() {
			c.left -= time.Since(c.since)
		} else {
			c.left = 0 // it fired: the call is timing out
		}
	}
	return sync.OnceFunc(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.holds--
		if c.holds == 0 && c.left > 0 && !c.done {
			c.since = time.Now()
			c.timer.Reset(c.left)
		}
	})
}
