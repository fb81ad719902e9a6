package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/telemetry"
	"github.com/toolscope/toolscope/tools"
)

// A request that carries a W3C trace context, to /v1 or to /api/runs,
// starts a run whose spans are in the caller's trace, under its span.
// Each path is called in a trace of its own, so that a path that lost
// the caller's context cannot pass on the other's spans.
func TestRunsJoinTheCallersTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tracer := telemetry.NewTracer(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), false)
	ts := start(t, setup{config: func(c *server.Config) { c.Hub.Observe(tracer) }})

	for _, call := range []struct{ path, body, traceID, parentID string }{
		{"/v1/chat/completions", `{"model": "toolscope-demo", "messages": [{"role": "user", "content": "Hello"}]}`,
			"4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"},
		{"/api/runs", `{"message": "Hello"}`,
			"0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"},
	} {
		headers := map[string]string{"traceparent": "00-" + call.traceID + "-" + call.parentID + "-01", "tracestate": "vendor=1"}
		resp, answer := ts.call(t, http.MethodPost, call.path, call.body, headers)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s = %d %s", call.path, resp.StatusCode, answer)
		}
		ts.waitIdle(t)
		var root sdktrace.ReadOnlySpan
		for _, s := range rec.Ended() {
			if s.Name() == "invoke_agent toolscope" && s.SpanContext().TraceID().String() == call.traceID {
				root = s
			}
		}
		if root == nil || root.Parent().SpanID().String() != call.parentID || !root.Parent().IsRemote() || root.Parent().TraceState().Get("vendor") != "1" {
			t.Fatalf("%s: no run's span under the caller's %s in trace %s", call.path, call.parentID, call.traceID)
		}
		rounds := 0
		for _, s := range rec.Ended() {
			if s.Parent().SpanID() == root.SpanContext().SpanID() && strings.HasPrefix(s.Name(), "text_completion ") {
				rounds++
			}
		}
		if rounds == 0 {
			t.Errorf("%s: the run's rounds are not in the caller's trace", call.path)
		}
	}
}

// waitIdle waits until no run is in progress.
func (ts *testServer) waitIdle(t *testing.T) {
	t.Helper()
	for _, s := range ts.hub.List() {
		r, err := ts.hub.Get(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for range r.Events(t.Context(), 0) {
		}
	}
}

// scripted is a model for tests that writes its replies in turn, one per
// model call, and then answers "done".
type scripted struct {
	mu      sync.Mutex
	replies []string
}

func (s *scripted) Info() llm.Info {
	return llm.Info{Backend: "scripted", Model: "script", Mode: llm.ModeChat}
}

func (s *scripted) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	return llm.Input{Mode: llm.ModeChat, Messages: req.Messages}, nil
}

func (s *scripted) Stream(_ context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	s.mu.Lock()
	reply := "done"
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	if err := fn(llm.Chunk{Content: reply}); err != nil {
		return llm.Stats{}, err
	}
	return llm.Stats{DoneReason: "stop", OutputTokens: 3, EvalDuration: 1e6}, nil
}

// badCall is a call in d that its parser refuses: its opening marker,
// then what no dialect reads as a call's payload.
func badCall(d streamparser.Dialect) string {
	var open, closing string
	for _, m := range d.Describe().Marks {
		switch {
		case m.Opens == streamparser.CallRegion && open == "":
			open = m.Text
		case m.Closes == streamparser.CallRegion && closing == "":
			closing = m.Text
		}
	}
	return open + "%% not a call %%" + closing
}

// goodCall is a call of send_mail as d writes one.
func goodCall(t *testing.T, d streamparser.Dialect) string {
	draft, err := streamparser.NewDraft(tools.SendMail, json.RawMessage(`{"to": "ann@example.com", "subject": "Hi", "body": "Hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.WriteCalls(&b, []streamparser.Draft{draft})
	return b.String()
}

// GET /metrics answers in Prometheus' text format, the operator alone
// when the server asks for tokens. Runs in each dialect whose model first
// writes a call the parser refuses, then one that runs, then answers,
// are counted: a parse failure per dialect, the runs, their rounds, the
// tool calls and their latency.
func TestMetrics(t *testing.T) {
	var metrics *telemetry.Metrics
	ts := start(t, setup{config: func(c *server.Config) {
		metrics = telemetry.NewMetrics(telemetry.Gauges{LiveRuns: c.Hub.Live, Viewers: c.Hub.Viewers})
		c.Hub.Observe(metrics)
		c.Metrics = metrics.Handler()
		c.Access = server.Access{Tokens: tokens}
	}})
	registry, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	// The Hub retires a run, and counts it out of the live runs, after
	// its last event: each run is waited for until the Hub is idle, so
	// that the next starts after it and the scrape sees none live.
	idle := make(chan struct{}, 1)
	ts.hub.OnIdle(func() { idle <- struct{}{} })
	dialects := streamparser.DialectNames()
	for _, name := range dialects {
		d, _ := streamparser.ParseDialect(name)
		model := &scripted{replies: []string{badCall(d), goodCall(t, d)}}
		a := agent.New(agent.Config{Backend: model, Tools: registry, Dialect: d})
		r, err := ts.hub.Start(runs.Spec{Message: "go", Agent: a, Source: runs.SourceAPI})
		if err != nil {
			t.Fatal(err)
		}
		for range r.Events(t.Context(), 0) {
		}
		<-idle
	}

	for who, headers := range map[string]map[string]string{"nobody": nil, "the viewer": bearer(tokens.Viewer)} {
		if resp, body := ts.call(t, http.MethodGet, "/metrics", "", headers); resp.StatusCode == http.StatusOK {
			t.Errorf("%s read /metrics: %s", who, body)
		}
	}
	resp, body := ts.call(t, http.MethodGet, "/metrics", "", bearer(tokens.Operator))
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not Prometheus' text format: %v\n%s", err, body)
	}
	failures := map[string]float64{}
	for _, m := range families["toolscope_parse_failures_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "dialect" {
				failures[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	for _, d := range dialects {
		if failures[d] != 1 {
			t.Errorf("%v parse failures counted in %s, want 1 (all: %v)", failures[d], d, failures)
		}
	}
	counter := func(name string, labels map[string]string) float64 {
		var sum float64
		for _, m := range families[name].GetMetric() {
			if matches(m.GetLabel(), labels) {
				sum += m.GetCounter().GetValue()
			}
		}
		return sum
	}
	n := float64(len(dialects))
	if got := counter("toolscope_runs_total", map[string]string{"source": "api", "outcome": "answered"}); got != n {
		t.Errorf("%v runs answered from the API, want %v", got, n)
	}
	if got := counter("toolscope_rounds_total", map[string]string{"source": "api"}); got != 3*n {
		t.Errorf("%v rounds, want %v", got, 3*n)
	}
	if got := counter("toolscope_tool_calls_total", map[string]string{"tool": tools.SendMail, "outcome": "ok"}); got != n {
		t.Errorf("%v calls of send_mail went well, want %v", got, n)
	}
	histogram := func(name string) uint64 {
		var count uint64
		for _, m := range families[name].GetMetric() {
			count += m.GetHistogram().GetSampleCount()
		}
		return count
	}
	if got := histogram("gen_ai_execute_tool_duration_seconds"); got != uint64(n) {
		t.Errorf("%d tool latencies, want %v", got, n)
	}
	for _, name := range []string{"toolscope_time_to_first_token_seconds", "toolscope_output_tokens_per_second"} {
		if got := histogram(name); got != uint64(3*n) {
			t.Errorf("%d samples of %s, want one per round, %v", got, name, 3*n)
		}
	}
	for _, name := range []string{"toolscope_live_runs", "toolscope_sse_viewers"} {
		if m := families[name].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != 0 {
			t.Errorf("%s = %v, want 0 once every run has finished", name, m)
		}
	}
}

// matches reports whether labels hold each of want's.
func matches(labels []*dto.LabelPair, want map[string]string) bool {
	found := 0
	for _, l := range labels {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}
