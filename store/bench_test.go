package store_test

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
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
	"github.com/toolscope/toolscope/tools"
)

// chatty is the demo model with a reply of n numbered tokens, sent as
// fast as the run takes them; sent[i] is when token i left it.
type chatty struct {
	*demo.Model
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

// BenchmarkDelivery runs a model that writes 5,000 tokens (about 10,000
// events) to one viewer, with the history off and on, the model as fast
// as it can (flat out) or paced: events/s is the viewer's throughput,
// p99-µs the 99th percentile of the time from a token leaving the model
// to the viewer getting its event.
func BenchmarkDelivery(b *testing.B) {
	for _, c := range []struct {
		name    string
		paced   bool
		history string
	}{{"flat-out", false, "off"}, {"flat-out", false, "on"}, {"paced", true, "off"}, {"paced", true, "on"}} {
		history := c.history
		b.Run(c.name+"/history="+history, func(b *testing.B) {
			h := runs.NewHub(4)
			defer h.Close()
			if history == "on" {
				s := open(b, b.TempDir(), store.Options{})
				defer s.Close()
				h.SetArchive(s)
			}
			registry, err := tools.NewRegistry(tools.Stubs(0)...)
			if err != nil {
				b.Fatal(err)
			}
			model := &chatty{Model: demo.New(demo.Config{}), sent: make([]atomic.Int64, 5000), paced: c.paced}
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
		})
	}
}
