// Package telemetry hands toolscope's runs to the tools engineers already
// keep traces and metrics in: OpenTelemetry traces over OTLP (Jaeger,
// Grafana Tempo, Langfuse, Arize Phoenix, Honeycomb, a Collector), named
// as the GenAI semantic conventions name them, and Prometheus metrics.
// Both are readers of a run's event stream, as the page and the history
// are: each is a [runs.Observer] of the Hub, told every agent.Event as the
// run emits it.
//
// # Traces
//
// [Start] sets tracing up when an OTLP endpoint is given (--otlp-endpoint)
// or the standard OTEL_EXPORTER_OTLP_ENDPOINT is set, honouring the
// standard variables (headers, protocol, service name, sampler, resource
// attributes); without one it returns nil, and nothing traces. Its
// [Tracer] makes a root span per run ("invoke_agent toolscope") as a child
// of the trace context the request that started the run carried
// ([runs.TraceContext]), a span per round ("chat {model}" or
// "text_completion {model}") and one per tool call ("execute_tool
// {tool}"). A call's span is in the context the tool runs under
// ([agent.WithCallContext]), so that package tools/mcp's client span
// "tools/call {tool}" nests under it and carries the trace context on to
// the MCP server. Spans are built from the events, with their times; what
// the model read and wrote, and the tools' arguments and results, go in
// them only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
// opts in. docs/observability.md lists every span, attribute and event.
//
// # Metrics
//
// [NewMetrics] counts runs, rounds, tool calls and parse failures, and
// measures time to first token, tokens per second and tool latency, from
// the same events; [Metrics.Handler] serves them, with the live runs,
// event-stream viewers and history write lag that [Gauges] read, in
// Prometheus' text format.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolscope/toolscope/internal/buildinfo"
)

// The standard variables that decide whether, where and how traces go
// (the SDK reads the others itself: headers, timeout, sampler, resource).
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envSDKDisabled    = "OTEL_SDK_DISABLED"
	envTracesExporter = "OTEL_TRACES_EXPORTER"
	// EnvCaptureContent opts in to content in spans, as the GenAI
	// conventions' instrumentations name it.
	EnvCaptureContent = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
)

// Protocols of OTEL_EXPORTER_OTLP_PROTOCOL that toolscope speaks.
const (
	ProtocolHTTP = "http/protobuf" // the default
	ProtocolGRPC = "grpc"
)

// On says whether tracing is asked for: by endpoint (--otlp-endpoint),
// or by the standard variables, unless OTEL_SDK_DISABLED or
// OTEL_TRACES_EXPORTER=none turn it off.
func On(endpoint string) bool {
	if b, _ := strconv.ParseBool(os.Getenv(envSDKDisabled)); b || os.Getenv(envTracesExporter) == "none" {
		return false
	}
	return endpoint != "" || os.Getenv(envEndpoint) != "" || os.Getenv(envTracesEndpoint) != ""
}

// Start sets up tracing to endpoint, an OTLP endpoint's base URL as
// OTEL_EXPORTER_OTLP_ENDPOINT gives one ("" for the variables' own), and
// returns the Tracer of runs; nil, and no error, when [On] says tracing
// is off. It makes the provider global, for the MCP client's spans. Call
// [Tracer.Shutdown] before the program exits: it sends the spans still
// queued.
func Start(ctx context.Context, endpoint string) (*Tracer, error) {
	if !On(endpoint) {
		return nil, nil
	}
	protocol, protocolVar := firstSet(envTracesProtocol, envProtocol)
	exporter, err := newExporter(ctx, protocol, endpoint)
	switch {
	case errors.Is(err, errProtocol):
		return nil, fmt.Errorf("$%s %q is not one toolscope speaks: use %s or %s", protocolVar, protocol, ProtocolHTTP, ProtocolGRPC)
	case err != nil:
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "toolscope"), attribute.String("service.version", buildinfo.Read().Version)),
		resource.WithTelemetrySDK(),
		// Last, so that OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
	}
	// The sampler is OTEL_TRACES_SAMPLER's, the batching OTEL_BSP_*'s.
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	content, _ := strconv.ParseBool(os.Getenv(EnvCaptureContent))
	t := NewTracer(provider, content)
	t.shutdown = provider.Shutdown
	if protocol == "" {
		protocol = ProtocolHTTP
	}
	if endpoint == "" {
		endpoint, _ = firstSet(envTracesEndpoint, envEndpoint)
	}
	t.endpoint = endpoint + " (" + protocol + ")"
	return t, nil
}

// firstSet is the value of the first of the variables that is set, and
// its name.
func firstSet(names ...string) (value, name string) {
	for _, name := range names {
		if v := os.Getenv(name); v != "" {
			return v, name
		}
	}
	return "", names[len(names)-1]
}

// errProtocol is newExporter's error for a protocol it does not speak,
// such as http/json, which Go's exporters lack.
var errProtocol = errors.New("unknown OTLP protocol")

// newExporter is the OTLP trace exporter of protocol (OTEL_EXPORTER_OTLP_
// PROTOCOL's). The exporters read the endpoint, headers, timeout,
// compression and certificates from the variables themselves; endpoint,
// when given, is a base URL as OTEL_EXPORTER_OTLP_ENDPOINT is, and wins
// over them.
func newExporter(ctx context.Context, protocol, endpoint string) (sdktrace.SpanExporter, error) {
	switch protocol {
	case "", ProtocolHTTP:
		var opts []otlptracehttp.Option
		if endpoint != "" {
			opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(endpoint, "/")+"/v1/traces"))
		}
		return otlptracehttp.New(ctx, opts...)
	case ProtocolGRPC:
		var opts []otlptracegrpc.Option
		if endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(endpoint))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	return nil, errProtocol
}
