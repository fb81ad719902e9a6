package runs

import "fmt"

// Defaults of Limits fields left zero.
const (
	DefaultMaxLive      = 64
	DefaultMaxRunEvents = 20_000
	DefaultMaxRunBytes  = 8 << 20
	DefaultKeepBytes    = 64 << 20
)

// Limits bound what a Hub holds, so that no request, however large, and
// no crowd of them can exhaust the server's memory.
type Limits struct {
	// MaxLive is the most runs in progress at once; Start refuses more
	// with ErrTooManyRuns.
	MaxLive int
	// MaxRunEvents and MaxRunBytes bound one run's events, counting
	// bytes of their JSON. A run that
	// would outgrow them is stopped: its last events are an Error event
	// saying so, a *LimitError, and run_finished.
	MaxRunEvents int
	MaxRunBytes  int
	// KeepBytes bounds the finished runs kept, besides their number: the
	// oldest are dropped first, the newest always kept.
	KeepBytes int
}

func (l Limits) withDefaults() Limits {
	if l.MaxLive <= 0 {
		l.MaxLive = DefaultMaxLive
	}
	if l.MaxRunEvents <= 0 {
		l.MaxRunEvents = DefaultMaxRunEvents
	}
	if l.MaxRunBytes <= 0 {
		l.MaxRunBytes = DefaultMaxRunBytes
	}
	if l.KeepBytes <= 0 {
		l.KeepBytes = DefaultKeepBytes
	}
	return l
}

// LimitError is why a run was stopped: it reached one of its limits.
type LimitError struct {
	Events, Bytes int // what the run had recorded
	// Limit is the bound reached: "events" or "bytes".
	Limit string
	Max   int
}

func (e *LimitError) Error() string {
	if e.Limit == "events" {
		return fmt.Sprintf("the run was stopped: it reached the limit of %d events a run may record", e.Max)
	}
	return fmt.Sprintf("the run was stopped: it reached the limit of %d MiB of events a run may record", e.Max>>20)
}

// exceeded says which limit a run with events and bytes recorded reached.
func (l Limits) exceeded(events, bytes int) *LimitError {
	if events+3 > l.MaxRunEvents {
		return &LimitError{Events: events, Bytes: bytes, Limit: "events", Max: l.MaxRunEvents}
	}
	return &LimitError{Events: events, Bytes: bytes, Limit: "bytes", Max: l.MaxRunBytes}
}
