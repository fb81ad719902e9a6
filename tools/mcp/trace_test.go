package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
)

// metaServer's tool "meta" answers with the params._meta its call came
// with: what a traced server reads its parent's trace context from.
func metaServer() *sdk.Server {
	s := newTestServer("meta")
	s.AddTool(&sdk.Tool{Name: "meta", InputSchema: noArgs}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		out, err := json.Marshal(req.Params.Meta)
		return text(string(out)), err
	})
	return s
}

// traced sets a global tracer provider that records spans, as package
// telemetry sets one, for the test; then tracing is off again. (The
// provider before is not what to restore: the first one set stays behind
// it, as the one it delegates to.)
func traced(t *testing.T) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	return rec
}

// A call made under a span is a client span "tools/call {tool}" under it,
// and the server gets the call's trace context, and the caller's baggage,
// in params._meta; over HTTP, in the request's headers too.
func TestTraceContextReachesTheServer(t *testing.T) {
	rec := traced(t)
	var mu sync.Mutex
	var headers []http.Header
	h, err := mcpserver.Handler(metaServer(), mcp.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()

	for transport, spec := range map[string]mcp.ServerSpec{"stdio": stdio("meta"), "http": {Name: "meta", URL: srv.URL}} {
		hub := connect(t, quick, spec)
		member, _ := baggage.NewMember("tenant", "acme")
		bag, _ := baggage.New(member)
		ctx, parent := otel.Tracer("test").Start(baggage.ContextWithBaggage(t.Context(), bag), "execute_tool meta")
		out, err := find(t, hub, "meta").Call(ctx, json.RawMessage(`{}`))
		parent.End()
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		if err := json.Unmarshal([]byte(out), &meta); err != nil {
			t.Fatalf("the server's _meta: %v: %s", err, out)
		}

		spans := rec.Ended()
		call := spans[len(spans)-2] // then the parent
		if call.Name() != "tools/call meta" || call.SpanKind() != trace.SpanKindClient || call.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Fatalf("%s: the call's span is %q (%v) under %v, want a client span tools/call meta under the caller's", transport, call.Name(), call.SpanKind(), call.Parent().SpanID())
		}
		want := "00-" + call.SpanContext().TraceID().String() + "-" + call.SpanContext().SpanID().String() + "-01"
		if meta["traceparent"] != want || meta["baggage"] != "tenant=acme" {
			t.Errorf("%s: the server got _meta %v, want traceparent %s and baggage tenant=acme", transport, meta, want)
		}
		if meta["progressToken"] == nil {
			t.Errorf("the progress token was lost: %v", meta)
		}
		hub.Close()
		if transport != "http" {
			continue
		}
		mu.Lock()
		var sent bool
		for _, h := range headers {
			sent = sent || h.Get("traceparent") == want && h.Get("baggage") == "tenant=acme"
		}
		mu.Unlock()
		if !sent {
			t.Errorf("no HTTP request carried traceparent %s and the baggage in its headers", want)
		}
	}
}

// With tracing off, a call sends no trace context.
func TestNoTraceContextWhenTracingIsOff(t *testing.T) {
	otel.SetTracerProvider(noop.NewTracerProvider())
	hub := connect(t, quick, stdio("meta"))
	out, err := find(t, hub, "meta").Call(t.Context(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(out), &meta); err != nil || meta["traceparent"] != nil || meta["baggage"] != nil {
		t.Errorf("the server got _meta %s (%v), want no trace context", out, err)
	}
}
