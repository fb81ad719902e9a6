package telemetry

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// Gauges read what is true now rather than counted from events; a nil
// one is left out.
type Gauges struct {
	LiveRuns   func() int // runs in progress
	Viewers    func() int // event streams following runs
	HistoryLag func() time.Duration
}

// Metrics are the Prometheus metrics of a program's runs. It is a
// [runs.Observer]: it counts each run's events as they come.
type Metrics struct {
	registry      *prometheus.Registry
	runs          *prometheus.CounterVec
	rounds        *prometheus.CounterVec
	toolCalls     *prometheus.CounterVec
	parseFailures *prometheus.CounterVec
	firstToken    *prometheus.HistogramVec
	tokensPerSec  *prometheus.HistogramVec
	toolDuration  *prometheus.HistogramVec
}

// NewMetrics returns the metrics, with gauges, and Go's and the process's
// own.
func NewMetrics(g Gauges) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolscope_runs_total",
			Help: "Runs finished, by where they came from (page, api, eval) and how they ended (answered, tool_calls, max_rounds, cancelled, cut_off, error)."},
			[]string{"source", "outcome"}),
		rounds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolscope_rounds_total",
			Help: "Model replies, by the run's source."}, []string{"source"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolscope_tool_calls_total",
			Help: "Tool calls finished, by tool and outcome (ok, error, stopped, faked)."}, []string{"tool", "outcome"}),
		parseFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolscope_parse_failures_total",
			Help: "Calls the model wrote that could not run, by dialect and reason (syntax, unclosed, unknown_tool, arguments)."},
			[]string{"dialect", "reason"}),
		firstToken: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "toolscope_time_to_first_token_seconds",
			Help:    "Time from sending a model its input to its first output, by model.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"model"}),
		tokensPerSec: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "toolscope_output_tokens_per_second",
			Help:    "A reply's output tokens per second of writing it, by model: the backend's own timing where it gives one, else from the first output to the end.",
			Buckets: []float64{1, 2, 5, 10, 20, 40, 80, 160, 320, 640, 1280}}, []string{"model"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gen_ai_execute_tool_duration_seconds",
			Help:    "How long tool calls took, by tool and outcome.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"tool", "outcome"}),
	}
	m.registry.MustRegister(m.runs, m.rounds, m.toolCalls, m.parseFailures, m.firstToken, m.tokensPerSec, m.toolDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gauge := func(name, help string, read func() float64) {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, read))
	}
	if g.LiveRuns != nil {
		gauge("toolscope_live_runs", "Runs in progress.", func() float64 { return float64(g.LiveRuns()) })
	}
	if g.Viewers != nil {
		gauge("toolscope_sse_viewers", "Event streams (Server-Sent Events) following runs.", func() float64 { return float64(g.Viewers()) })
	}
	if g.HistoryLag != nil {
		gauge("toolscope_history_write_lag_seconds", "How far behind the live stream the history's last write was: the age of the oldest event it wrote.",
			func() float64 { return g.HistoryLag().Seconds() })
	}
	return m
}

// Handler serves the metrics in Prometheus' text format (or OpenMetrics,
// to a scraper that asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Observe counts r's events; it leaves the run's context as it is.
func (m *Metrics) Observe(ctx context.Context, r *runs.Run) (context.Context, func(agent.Event)) {
	rm := &runMetrics{Metrics: m, source: string(r.Source)}
	return ctx, rm.observe
}

// runMetrics counts one run's events: the run's labels, and when its
// round in progress began to reply.
type runMetrics struct {
	*Metrics
	source, dialect, model string
	firstOutput            time.Time // zero until the round in progress replies
	// faking: the ToolFinished that comes next is a result typed at a
	// pause, which the Edited event before it announced.
	faking bool
}

// observe counts e. Tokens cost a comparison and, once a round, the time.
func (rm *runMetrics) observe(e agent.Event) {
	switch e.Type {
	case agent.Token, agent.ThinkingDelta, agent.TextDelta:
		if rm.firstOutput.IsZero() {
			rm.firstOutput = time.Now()
		}
	case agent.RunStarted:
		rm.dialect, rm.model = e.Run.Dialect, e.Run.Model
	case agent.RoundStarted:
		rm.firstOutput = time.Time{}
	case agent.RoundFinished:
		rm.roundFinished(e.Stats)
	case agent.ToolCallInvalid:
		rm.parseFailures.WithLabelValues(rm.dialect, refusal(e.Call.Reason)).Inc()
	case agent.Edited:
		rm.faking = e.Change.What == "result" || e.Change.What == "error"
	case agent.ToolFinished:
		rm.toolFinished(e)
	case agent.RunFinished:
		rm.runs.WithLabelValues(rm.source, string(e.Reason)).Inc()
	}
}

func (rm *runMetrics) roundFinished(s *agent.RoundStats) {
	rm.rounds.WithLabelValues(rm.source).Inc()
	if s.FirstTokenMS > 0 {
		rm.firstToken.WithLabelValues(rm.model).Observe(s.FirstTokenMS / 1000)
	}
	writing := s.EvalMS / 1000
	if writing <= 0 && !rm.firstOutput.IsZero() {
		writing = time.Since(rm.firstOutput).Seconds()
	}
	if s.OutputTokens > 0 && writing > 0 {
		rm.tokensPerSec.WithLabelValues(rm.model).Observe(float64(s.OutputTokens) / writing)
	}
}

// toolFinished counts a call that ran, or whose result was faked at a
// pause, which took no time since nothing ran.
func (rm *runMetrics) toolFinished(e agent.Event) {
	outcome := outcomeOK
	switch {
	case rm.faking:
		rm.faking = false
		rm.toolCalls.WithLabelValues(e.Call.Name, outcomeFaked).Inc()
		return
	case e.Stopped:
		outcome = outcomeStopped
	case e.Error != "":
		outcome = outcomeError
	}
	rm.toolCalls.WithLabelValues(e.Call.Name, outcome).Inc()
	rm.toolDuration.WithLabelValues(e.Call.Name, outcome).Observe(e.DurationMS / 1000)
}
