package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
	"github.com/toolscope/toolscope/tools"
)

// chatty is the demo model with a reply of numbered tokens, sent as fast
// as the run takes them, or paced; sent[i] is when token i left it. It is
// store's benchmark model, so that the figures compare.
type chatty struct {
	*demo.Model
	sent  []atomic.Int64
	paced bool // 1ms every 20 tokens: at most 20,000 tokens a second
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
// events) to one viewer, flat out or paced, with telemetry at each of its
// levels: none (toolscope before it), metrics (a server with tracing
// off), traces (and metrics, spans exported over OTLP/HTTP to an
// in-process receiver), and traces with content. events/s is the
// viewer's throughput, p99-µs the 99th percentile of the time from a
// token leaving the model to the viewer getting its event.
func BenchmarkDelivery(b *testing.B) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer receiver.Close()
	for _, pace := range []string{"flat-out", "paced"} {
		for _, level := range []string{"none", "metrics", "traces", "traces+content"} {
			b.Run(pace+"/telemetry="+level, func(b *testing.B) {
				h := runs.NewHub(4)
				defer h.Close()
				if level != "none" {
					h.Observe(telemetry.NewMetrics(telemetry.Gauges{LiveRuns: h.Live, Viewers: h.Viewers}))
				}
				if strings.HasPrefix(level, "traces") {
					b.Setenv(telemetry.EnvCaptureContent, strconv.FormatBool(level == "traces+content"))
					tracer, err := telemetry.Start(b.Context(), receiver.URL)
					if err != nil {
						b.Fatal(err)
					}
					defer tracer.Shutdown(context.Background())
					h.Observe(tracer)
				}
				registry, err := tools.NewRegistry(tools.Stubs(0)...)
				if err != nil {
					b.Fatal(err)
				}
				model := &chatty{Model: demo.New(demo.Config{}), sent: make([]atomic.Int64, 5000), paced: pace == "paced"}
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
}

// BenchmarkObserve measures what telemetry adds to each event of the
// live stream: one op is a run of 5,000 token events (and its start and
// end) read by a run's metrics, by its tracer as well, or by its tracer
// with content; ns/event is the cost of one event. A Hub, by comparison,
// encodes each event as JSON and wakes its viewers: BenchmarkDelivery's
// events/s is its whole cost.
func BenchmarkObserve(b *testing.B) {
	const tokens = 5000
	events := []agent.Event{
		{Type: agent.RunStarted, Run: &agent.RunInfo{Info: llm.Info{Backend: "demo", Model: "toolscope-demo", Mode: llm.ModeRaw}, Dialect: "hermes"}},
		{Type: agent.RoundStarted, Round: 1, Input: &llm.Input{Mode: llm.ModeRaw, Prompt: "talk"}},
	}
	for i := range tokens {
		events = append(events, agent.Event{Type: agent.Token, Round: 1, Text: strconv.Itoa(i) + " ", Region: "text"})
	}
	events = append(events, agent.Event{Type: agent.RoundFinished, Round: 1, Stats: &agent.RoundStats{DoneReason: "stop", OutputTokens: tokens}},
		agent.Event{Type: agent.RunFinished, Reason: agent.Answered, Rounds: 1})
	provider := sdktrace.NewTracerProvider() // no exporter: the tokens make no spans
	defer provider.Shutdown(context.Background())
	for _, level := range []string{"metrics", "traces", "traces+content"} {
		b.Run("telemetry="+level, func(b *testing.B) {
			observers := []runs.Observer{telemetry.NewMetrics(telemetry.Gauges{})}
			if strings.HasPrefix(level, "traces") {
				observers = append(observers, telemetry.NewTracer(provider, level == "traces+content"))
			}
			r := &runs.Run{ID: "r-1", Source: runs.SourcePage, Started: time.Now()}
			for b.Loop() {
				var fns []func(agent.Event)
				for _, o := range observers {
					_, fn := o.Observe(context.Background(), r)
					fns = append(fns, fn)
				}
				for _, e := range events {
					for _, fn := range fns {
						fn(e)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
		})
	}
}
