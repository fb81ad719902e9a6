package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/streambench"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
)

// BenchmarkDelivery is streambench's delivery of a run to one viewer, as
// store's benchmark runs it for the history, with telemetry at each of its
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
				streambench.Delivery(b, h, demo.New(demo.Config{}), pace == "paced")
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
