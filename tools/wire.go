package tools

import (
	"context"
	"encoding/json"
)

// WireMessage is one protocol message a tool exchanged with another
// process during a call, such as a JSON-RPC request to an MCP server.
// Front ends show them beside the call.
type WireMessage struct {
	Direction string          `json:"direction"` // "sent" or "received"
	Body      json.RawMessage `json:"body"`
	// Protocol is the revision of the protocol the message belongs to,
	// such as MCP's "2026-07-28", if the tool knows it.
	Protocol string `json:"protocol,omitempty"`
}

type recorderKey struct{}

// WithRecorder returns a context under which Record passes messages to fn.
func WithRecorder(ctx context.Context, fn func(WireMessage)) context.Context {
	return context.WithValue(ctx, recorderKey{}, fn)
}

// Record reports a message exchanged during the call that ctx belongs to.
// Without a recorder it does nothing.
func Record(ctx context.Context, m WireMessage) {
	if fn, ok := ctx.Value(recorderKey{}).(func(WireMessage)); ok {
		fn(m)
	}
}

// Sourced is implemented by tools that come from somewhere other than
// toolscope itself, such as an MCP server.
type Sourced interface {
	// Source names where the tool lives, e.g. "mcp:calculator".
	Source() string
}

// SourceOf names where t lives: its Source, or "builtin".
func SourceOf(t Tool) string {
	if s, ok := t.(Sourced); ok {
		return s.Source()
	}
	return "builtin"
}
