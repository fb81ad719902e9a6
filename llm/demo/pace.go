package demo

import (
	"context"
	"time"
)

// pacer spaces tokens out in time, as a model generating them would. One
// timer serves the whole reply.
type pacer struct {
	timer *time.Timer
}

// wait pauses for d, returning ctx's error as soon as ctx ends.
func (p *pacer) wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.timer.C:
		return nil
	}
}

func (p *pacer) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}
