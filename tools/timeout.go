package tools

import "context"

type callerTimesKey struct{}

// WithCallerTimeout marks ctx as that of a call whose caller ends it at
// a timeout of its own, so that the tool sets none: the caller's clock
// may stand still while a person answers what the tool asks (an MCP
// server's elicitation), which a tool's own timer would not know.
func WithCallerTimeout(ctx context.Context) context.Context {
	return context.WithValue(ctx, callerTimesKey{}, true)
}

// CallerTimesOut reports whether ctx was marked by [WithCallerTimeout].
func CallerTimesOut(ctx context.Context) bool {
	timed, _ := ctx.Value(callerTimesKey{}).(bool)
	return timed
}
