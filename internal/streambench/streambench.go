// Package streambench is the benchmark of a run's live stream that the
// history's (package store) and telemetry's benchmarks share, so that
// their figures compare: a model that writes numbered tokens, flat out or
// paced, and one viewer reading each run it writes. It is test support,
// imported by benchmarks only; medians.awk, beside it, is the bench.sh
// scripts' reading of the benchmarks' output.
package streambench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
)

// Tokens is how many tokens a run's model writes: about twice as many
// events.
const Tokens = 5000

// chatty is a model with a reply of numbered tokens, which renders its
// input as the model it wraps does; sent[i] is when token i left it.
type chatty struct {
	llm.Backend
	sent []atomic.Int64
	// paced, when set, pauses 1ms every 20 tokens: 20,000 tokens a
	// second at most, more than any model writes, so that the latency
	// measured is delivery's, not a queue's behind a model that never waits.
	paced bool
}

func (m *chatty) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	for i := range m.sent {
		if m.paced && i%20 == 19 {
			time.Sleep(time.Millisecond)
		}
		m.sent[i].Store(time.Now().UnixNano())
		if err := fn(llm.Chunk{Content: fmt.Sprintf("%d ", i)}); err != nil {
			return llm.Stats{}, err
		}
	}
	return llm.Stats{DoneReason: "stop"}, nil
}

// Delivery runs a model writing Tokens tokens through h, flat out or
// paced, its input rendered by base (the demo model: package llm/demo is
// engine's alone outside tests, so a benchmark passes it in), once per iteration of b, to one viewer, and reports events/s,
// the viewer's throughput, and p99-µs, the 99th percentile of the time
// from a token leaving the model to the viewer getting its event. The
// caller sets h up as the case measured needs (an archive, observers).
func Delivery(b *testing.B, h *runs.Hub, base llm.Backend, paced bool) {
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		b.Fatal(err)
	}
	model := &chatty{Backend: base, sent: make([]atomic.Int64, Tokens), paced: paced}
	a := agent.New(agent.Config{Backend: model, Tools: registry})
	var latencies []time.Duration
	events := 0
	for b.Loop() {
		r, err := h.Start(runs.Spec{Message: "talk", Agent: a})
		if err != nil {
			b.Fatal(err)
		}
		for enc := range r.Encoded(context.Background(), 0) {
			events++
			if enc.Type != agent.Token {
				continue
			}
			now := time.Now().UnixNano()
			if i, err := strconv.Atoi(strings.TrimSpace(enc.Event().Text)); err == nil {
				latencies = append(latencies, time.Duration(now-model.sent[i].Load()))
			}
		}
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "p99-µs")
}
