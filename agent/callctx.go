package agent

import "context"

type callContextKey struct{}

// WithCallContext returns a context under which a run derives the context
// each tool call runs under with fn, on the run's goroutine, right after
// the call's ToolStarted event is emitted. It is how one who reads a
// run's events reaches into the call itself: a tracer puts the span it
// opened at ToolStarted there, and the tool (an MCP client) carries it on
// to the server it calls.
//
// Uses chain: when ctx already holds a derivation, fn derives from what
// that one returns, so that several observers of a run each reach the
// call, in the order they were added, and none hides another's.
func WithCallContext(ctx context.Context, fn func(context.Context) context.Context) context.Context {
	if before, ok := ctx.Value(callContextKey{}).(func(context.Context) context.Context); ok {
		then := fn
		fn = func(ctx context.Context) context.Context { return then(before(ctx)) }
	}
	return context.WithValue(ctx, callContextKey{}, fn)
}

// callContext is ctx as the run's WithCallContext derives it; ctx itself
// when there is none.
func callContext(ctx context.Context) context.Context {
	if fn, ok := ctx.Value(callContextKey{}).(func(context.Context) context.Context); ok {
		return fn(ctx)
	}
	return ctx
}
