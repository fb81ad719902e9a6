// Package toolstest provides tools for tests that need to control when a
// tool call ends.
package toolstest

import (
	"context"
	"encoding/json"

	"github.com/toolscope/toolscope/tools"
)

// Gate is a tool whose calls block until the test releases them or the
// call's context ends, so that a test can hold a run with a tool running.
type Gate struct {
	// Started receives a value as each call begins.
	Started chan struct{}
	release chan struct{}
	name    string
}

// NewGate returns a Gate whose tool is called name and takes any object.
func NewGate(name string) *Gate {
	return &Gate{Started: make(chan struct{}, 16), release: make(chan struct{}), name: name}
}

// Release lets every call, present and future, return {"status":"done"}.
func (g *Gate) Release() { close(g.release) }

// Tool returns the gated tool.
func (g *Gate) Tool() tools.Tool {
	return tools.Func(g.name, "Waits until the test lets it finish.", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, _ struct{}) (string, error) {
			g.Started <- struct{}{}
			select {
			case <-g.release:
				return `{"status":"done"}`, nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
}
