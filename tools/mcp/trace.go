package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// A call is traced as OpenTelemetry's MCP conventions say: a client span
// "tools/call {tool}", whose trace context goes to the server in the
// request's params._meta (and, on HTTP, in its headers too), so that a
// traced server's spans nest under it. The tracer is the global
// provider's, which does nothing, and costs next to nothing, until a
// program sets one up (package telemetry does). It is looked up at each
// call, since a tracer kept from before would keep the first provider
// ever set.
const tracerName = "github.com/toolscope/toolscope/tools/mcp"

// propagator writes a trace context as the conventions ask: W3C
// traceparent and tracestate, and baggage.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Keys of the trace context in params._meta and in HTTP headers.
const (
	keyTraceparent = "traceparent"
	keyTracestate  = "tracestate"
	keyBaggage     = "baggage"
)

// traceCall opens the span of a call to tool under ctx's span and writes
// its trace context into meta, the call's params._meta.
func (s *server) traceCall(ctx context.Context, tool string, meta sdk.Meta) (context.Context, trace.Span) {
	transport := "pipe"
	if s.spec.transport() != TransportStdio {
		transport = "tcp"
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", tool),
		attribute.String("network.transport", transport),
		attribute.String("toolscope.mcp.server", s.name),
	))
	propagator.Inject(ctx, metaCarrier(meta))
	return ctx, span
}

// endCall records on span what the session and the wiretap learnt of
// the call, and how it ended, then ends it. isError is a result the
// server flagged as an error.
func (s *server) endCall(span trace.Span, session *sdk.ClientSession, tapped *tappedCall, isError bool, err, cause error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if id := session.ID(); id != "" {
		span.SetAttributes(attribute.String("mcp.session.id", id))
	}
	if init := session.InitializeResult(); init != nil {
		span.SetAttributes(attribute.String("mcp.protocol.version", init.ProtocolVersion))
	}
	if id := s.tap.requestID(tapped); id != "" {
		span.SetAttributes(attribute.String("jsonrpc.request.id", id))
	}
	switch {
	case err != nil:
		span.SetAttributes(attribute.String("error.type", errorType(err, cause)))
		span.SetStatus(codes.Error, err.Error())
	case isError:
		span.SetAttributes(attribute.String("error.type", "tool_error"))
		span.SetStatus(codes.Error, "the tool's result says it failed")
	}
}

// errorType names how a call failed, for error.type: the JSON-RPC error
// code of a refusal, as the conventions ask, or toolscope's word for the
// failure. cause is the call's context's cause once it ended.
func errorType(err, cause error) string {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return strconv.FormatInt(rpcErr.Code, 10)
	case errors.Is(cause, errCallTimeout):
		return "timeout"
	case cause != nil:
		return "cancelled"
	case errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection_closed"
	}
	return "call_failed"
}

// metaCarrier lets a propagator write into a request's params._meta.
type metaCarrier sdk.Meta

func (m metaCarrier) Get(key string) string {
	v, _ := m[key].(string)
	return v
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// traceHeaders copies the trace context that a request's messages carry
// in params._meta into its HTTP headers, where HTTP instrumentation and
// proxies look for it.
func traceHeaders(h http.Header, msgs []rpcMessage) {
	for _, m := range msgs {
		if m.traceparent == "" {
			continue
		}
		h.Set(keyTraceparent, m.traceparent)
		for key, v := range map[string]string{keyTracestate: m.tracestate, keyBaggage: m.baggage} {
			if v != "" {
				h.Set(key, v)
			}
		}
		return
	}
}

// unquoteID is a JSON-RPC id as text: a string's content, a number as
// written.
func unquoteID(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	return raw
}
