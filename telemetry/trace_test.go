package telemetry_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The MCP server of these tests is this test binary, started again with
// roleEnv set: toolscope's own calculator, over stdio.
const roleEnv = "TOOLSCOPE_TELEMETRY_TEST_MCP"

func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) != "" {
		if err := mcpserver.Serve(context.Background(), mcpserver.Calculator(), mcpserver.TransportStdio, "", os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// receiver takes the spans toolscope exports, as a Collector would:
// over OTLP/HTTP in protobuf, or over OTLP/gRPC.
type receiver struct {
	coltracepb.UnimplementedTraceServiceServer
	url   string
	mu    sync.Mutex
	spans []*tracepb.Span
	// service is the service.name of the resource the spans came with.
	service string
}

// newReceiver serves OTLP/HTTP.
func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
			t.Errorf("the receiver got %s %s (%s): %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "not an OTLP export", http.StatusBadRequest)
			return
		}
		rc.Export(r.Context(), &req)
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	rc.url = srv.URL
	return rc
}

// newGRPCReceiver serves OTLP/gRPC.
func newGRPCReceiver(t *testing.T) *receiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{url: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, rc)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return rc
}

// Export keeps the spans of an export.
func (rc *receiver) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		if v, ok := attrs(rs.Resource.Attributes)["service.name"]; ok {
			rc.service = v.GetStringValue()
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func attrs(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// cleanEnv unsets the variables that would send a test's spans
// elsewhere, or not at all.
func cleanEnv(t *testing.T) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_TRACES_SAMPLER",
		"OTEL_RESOURCE_ATTRIBUTES", telemetry.EnvCaptureContent} {
		t.Setenv(name, "")
	}
}

// tracedRun runs message through a Hub traced to a receiver over
// OTLP/HTTP, on the demo model with the calculator's MCP tools, and
// returns the spans received and the run.
func tracedRun(t *testing.T, message string, trace runs.TraceContext) (*receiver, *runs.Run) {
	t.Helper()
	rc := newReceiver(t)
	return rc, runTo(t, rc, message, trace)
}

// runTo runs message through a Hub traced to rc.
func runTo(t *testing.T, rc *receiver, message string, trace runs.TraceContext) *runs.Run {
	t.Helper()
	a := engineAgent(t, engine.Settings{Backend: engine.BackendDemo,
		MCP: []mcp.ServerSpec{{Name: "calculator", Command: os.Args[0], Env: map[string]string{roleEnv: "calculator"}}}})
	return exportRun(t, rc, runs.Spec{Message: message, Agent: a, Trace: trace})
}

// tree is the spans received, by name, with their parents.
type tree struct {
	t     *testing.T
	spans []*tracepb.Span
}

// named returns the spans called name, failing unless there are n.
func (tr tree) named(name string, n int) []*tracepb.Span {
	tr.t.Helper()
	var found []*tracepb.Span
	for _, s := range tr.spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != n {
		tr.t.Fatalf("%d spans named %q, want %d; got %v", len(found), name, n, tr.names())
	}
	return found
}

func (tr tree) names() []string {
	var names []string
	for _, s := range tr.spans {
		names = append(names, s.Name)
	}
	return names
}

// wantChild fails unless child is a span of parent, in its trace.
func wantChild(t *testing.T, child, parent *tracepb.Span) {
	t.Helper()
	if string(child.TraceId) != string(parent.TraceId) || string(child.ParentSpanId) != string(parent.SpanId) {
		t.Errorf("%q is not a child of %q", child.Name, parent.Name)
	}
}

// wantAttrs fails unless span has each attribute, of the value given:
// a string, an int or a []string.
func wantAttrs(t *testing.T, span *tracepb.Span, want map[string]any) {
	t.Helper()
	got := attrs(span.Attributes)
	for key, value := range want {
		v, ok := got[key]
		if !ok {
			t.Errorf("%q has no attribute %s", span.Name, key)
			continue
		}
		var same bool
		switch value := value.(type) {
		case string:
			same = v.GetStringValue() == value
		case int:
			same = v.GetIntValue() == int64(value)
		case []string:
			var list []string
			for _, item := range v.GetArrayValue().GetValues() {
				list = append(list, item.GetStringValue())
			}
			same = slices.Equal(list, value)
		}
		if !same {
			t.Errorf("%q has %s = %v, want %v", span.Name, key, v, value)
		}
	}
}

func hasEvent(span *tracepb.Span, name string) bool {
	return slices.ContainsFunc(span.Events, func(e *tracepb.Span_Event) bool { return e.Name == name })
}

// contentKeys are the attributes that hold what the model read and
// wrote, or a tool's arguments and result: sent only when opted in.
var contentKeys = []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
	"gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "toolscope.prompt", "toolscope.output.raw"}

// A two-round run with an MCP call, exported over OTLP/HTTP: the span
// tree the GenAI and MCP conventions name, its attributes, and no
// content without the opt-in.
func TestRunSpans(t *testing.T) {
	cleanEnv(t)
	rc, r := tracedRun(t, "What is 15 times 27?", runs.TraceContext{})
	tr := tree{t, rc.spans}
	if rc.service != "toolscope" {
		t.Errorf("service.name %q, want toolscope", rc.service)
	}

	root := tr.named("invoke_agent toolscope", 1)[0]
	if len(root.ParentSpanId) != 0 {
		t.Errorf("the run's span has a parent, with no trace context given")
	}
	wantAttrs(t, root, map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "toolscope", "gen_ai.provider.name": "demo",
		"gen_ai.request.model": "toolscope-demo", "gen_ai.conversation.id": r.ConversationID,
		"toolscope.run.id": r.ID, "toolscope.run.source": "page", "toolscope.dialect": "hermes",
		"toolscope.run.reason": "answered", "toolscope.run.rounds": 2,
	})

	rounds := tr.named("text_completion toolscope-demo", 2)
	for i, round := range rounds {
		wantChild(t, round, root)
		if round.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("round %d is a %v span, want a client span", i+1, round.Kind)
		}
		wantAttrs(t, round, map[string]any{"gen_ai.operation.name": "text_completion", "gen_ai.provider.name": "demo",
			"gen_ai.request.model": "toolscope-demo", "toolscope.round": i + 1, "gen_ai.response.finish_reasons": []string{"stop"}})
		if out := attrs(round.Attributes)["gen_ai.usage.output_tokens"].GetIntValue(); out <= 0 {
			t.Errorf("round %d has gen_ai.usage.output_tokens %d", i+1, out)
		}
		if !hasEvent(round, "toolscope.first_token") {
			t.Errorf("round %d has no first_token event", i+1)
		}
	}
	wantAttrs(t, rounds[0], map[string]any{"toolscope.calls.parsed": 1, "toolscope.calls.refused": 0})
	wantAttrs(t, rounds[1], map[string]any{"toolscope.calls.parsed": 0})

	tool := tr.named("execute_tool multiply", 1)[0]
	wantChild(t, tool, root)
	wantAttrs(t, tool, map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "multiply",
		"gen_ai.tool.call.id": "call_1_0", "toolscope.tool.outcome": "ok"})

	call := tr.named("tools/call multiply", 1)[0]
	wantChild(t, call, tool)
	if call.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("tools/call is a %v span, want a client span", call.Kind)
	}
	wantAttrs(t, call, map[string]any{"mcp.method.name": "tools/call", "gen_ai.tool.name": "multiply", "network.transport": "pipe"})
	if id := attrs(call.Attributes)["jsonrpc.request.id"].GetStringValue(); id == "" {
		t.Errorf("tools/call has no jsonrpc.request.id")
	}

	for _, s := range tr.spans {
		for _, kv := range s.Attributes {
			if slices.Contains(contentKeys, kv.Key) || strings.Contains(kv.Value.GetStringValue(), "times 27") {
				t.Errorf("%q carries content without the opt-in: %s = %v", s.Name, kv.Key, kv.Value)
			}
		}
	}
}

// With the opt-in, the spans carry what the model read and wrote, and
// the tool's arguments and result, in the conventions' shapes.
func TestRunSpansWithContent(t *testing.T) {
	cleanEnv(t)
	t.Setenv(telemetry.EnvCaptureContent, "true")
	rc, _ := tracedRun(t, "What is 15 times 27?", runs.TraceContext{})
	tr := tree{t, rc.spans}

	first := tr.named("text_completion toolscope-demo", 2)[0]
	got := attrs(first.Attributes)
	for key, fragment := range map[string]string{
		"gen_ai.input.messages":      `{"role":"user","parts":[{"type":"text","content":"What is 15 times 27?"}]}`,
		"gen_ai.system_instructions": `"type":"text"`,
		"toolscope.prompt":           "What is 15 times 27?",
		"gen_ai.output.messages":     `{"type":"tool_call","id":"call_1_0","name":"multiply","arguments":{"a":15,"b":27}}`,
		"toolscope.output.raw":       "<tool_call>",
	} {
		if v := got[key].GetStringValue(); !strings.Contains(v, fragment) {
			t.Errorf("round 1's %s is %q, want it to hold %q", key, v, fragment)
		}
	}
	tool := tr.named("execute_tool multiply", 1)[0]
	wantAttrs(t, tool, map[string]any{"gen_ai.tool.call.arguments": `{"a":15,"b":27}`, "gen_ai.tool.call.result": "405"})
	root := tr.named("invoke_agent toolscope", 1)[0]
	if v := attrs(root.Attributes)["gen_ai.output.messages"].GetStringValue(); !strings.Contains(v, "405") {
		t.Errorf("the run's gen_ai.output.messages %q lacks the answer", v)
	}
}

// A run started by a request that carried a W3C trace context is part of
// the caller's trace: its span is a child of the caller's.
func TestRunJoinsTheCallersTrace(t *testing.T) {
	cleanEnv(t)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	rc, _ := tracedRun(t, "What is 15 times 27?", runs.TraceContext{Parent: "00-" + traceID + "-" + parentID + "-01"})
	tr := tree{t, rc.spans}
	root := tr.named("invoke_agent toolscope", 1)[0]
	if hex(root.TraceId) != traceID || hex(root.ParentSpanId) != parentID {
		t.Errorf("the run's span is in trace %s under %s, want %s under %s", hex(root.TraceId), hex(root.ParentSpanId), traceID, parentID)
	}
	for _, s := range tr.spans {
		if hex(s.TraceId) != traceID {
			t.Errorf("%q is in trace %s, not the caller's", s.Name, hex(s.TraceId))
		}
	}
}

func hex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc sends the spans over OTLP/gRPC, with
// the resource the standard variables name; http/json, which Go's
// exporters lack, is refused in words.
func TestProtocolsAndResource(t *testing.T) {
	cleanEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_SERVICE_NAME", "lab-toolscope")
	rc := newGRPCReceiver(t)
	runTo(t, rc, "What is 15 times 27?", runs.TraceContext{})
	tree{t, rc.spans}.named("tools/call multiply", 1)
	if rc.service != "lab-toolscope" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", rc.service)
	}

	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	if _, err := telemetry.Start(t.Context(), rc.url); err == nil || !strings.Contains(err.Error(), `$OTEL_EXPORTER_OTLP_PROTOCOL "http/json" is not one toolscope speaks`) {
		t.Errorf("Start with http/json: %v", err)
	}
	cleanEnv(t)
	if tracer, err := telemetry.Start(t.Context(), ""); tracer != nil || err != nil {
		t.Errorf("Start with no endpoint = %v, %v; want tracing off", tracer, err)
	}
}
