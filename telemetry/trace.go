package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
)

// Tracer traces runs: it is the [runs.Observer] that turns each run's
// events into spans.
type Tracer struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	// content says the user opted in to the model's input and output, and
	// tools' arguments and results, in spans.
	content  bool
	shutdown func(context.Context) error
	endpoint string // where the spans go, and how, for a person to read
}

// NewTracer returns a Tracer whose spans go to provider, with content
// (see [EnvCaptureContent]) or without. [Start] is how a program makes
// one; a test may give a provider of its own.
func NewTracer(provider trace.TracerProvider, content bool) *Tracer {
	return &Tracer{tracer: provider.Tracer("github.com/toolscope/toolscope/telemetry"),
		propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
		content:    content, shutdown: func(context.Context) error { return nil }}
}

// Endpoint says where the spans go, and by which protocol.
func (t *Tracer) Endpoint() string { return t.endpoint }

// Shutdown sends the spans still queued, and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Observe opens the run's root span, a child of the trace context the
// request that started the run carried, and returns the run's context,
// which holds the span, and the reader of its events.
func (t *Tracer) Observe(ctx context.Context, r *runs.Run) (context.Context, func(agent.Event)) {
	ctx = t.propagator.Extract(ctx, traceCarrier(r.Trace))
	ctx, root := t.tracer.Start(ctx, "invoke_agent toolscope", trace.WithTimestamp(r.Started), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "toolscope"),
		attribute.String("gen_ai.conversation.id", r.ConversationID),
		attribute.String("toolscope.run.id", r.ID),
		attribute.String("toolscope.run.source", string(r.Source)),
	))
	if r.UserAgent != "" {
		root.SetAttributes(attribute.String("user_agent.original", r.UserAgent))
	}
	rt := &runTrace{Tracer: t, ctx: ctx, root: root, message: r.Message, fold: transcript.New()}
	return agent.WithCallContext(ctx, rt.callContext), rt.observe
}

// traceCarrier reads a run's trace context as a propagator reads headers.
type traceCarrier runs.TraceContext

func (c traceCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.Parent
	case "tracestate":
		return c.State
	case "baggage":
		return c.Baggage
	}
	return ""
}

func (c traceCarrier) Set(string, string) {}

func (c traceCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

// runTrace is the tracing of one run: its spans open so far, and the
// run's events folded, which the spans' attributes are read from.
type runTrace struct {
	*Tracer
	ctx     context.Context // the run's, holding the root span
	root    trace.Span
	round   trace.Span // the round in progress; nil between rounds
	tool    trace.Span // the call running; nil between calls
	message string
	fold    *transcript.Transcript
	// replied says the round in progress has had its first output.
	replied bool
}

// callContext is the context a call runs under: with its span, which
// ToolStarted, emitted just before, opened.
func (rt *runTrace) callContext(ctx context.Context) context.Context {
	if rt.tool == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, rt.tool)
}

// observe reads the run's next event: it folds it in, and opens or ends
// the spans it starts or ends. The reply's text, most of a run's events,
// costs a comparison, and is folded only for content, which alone reads
// it.
func (rt *runTrace) observe(e agent.Event) {
	switch e.Type {
	case agent.Token, agent.ThinkingDelta, agent.TextDelta:
		if rt.content {
			rt.fold.Add(e)
		}
		rt.output()
		return
	}
	rt.fold.Add(e)
	switch e.Type {
	case agent.ToolCallParsed:
		rt.output()
	case agent.ToolCallInvalid, agent.ToolCallCut, agent.ToolCallInThinking:
		rt.callRead(e)
	case agent.RunStarted:
		rt.started()
	case agent.ToolsSelected:
		rt.root.AddEvent("toolscope.tools_selected", trace.WithAttributes(
			attribute.StringSlice("toolscope.tools", rt.fold.Selection.Names()),
			attribute.String("toolscope.retriever", string(rt.fold.Selection.Retriever)),
			attribute.Int("toolscope.tools.left_out", rt.fold.Selection.LeftOut)))
	case agent.RoundStarted:
		rt.roundStarted(e.Round)
	case agent.RoundFinished:
		rt.roundFinished(e.Round)
	case agent.ToolStarted:
		rt.toolStarted(e.Round, e.Call.Index)
	case agent.ToolFinished:
		rt.toolFinished(e.Round, e.Call.Index)
	case agent.Paused, agent.Edited:
		rt.stepped(e)
	case agent.Error:
		rt.failed(e)
	case agent.RunFinished:
		rt.finished()
	}
}

// output marks the round's first output, once: a call its server parsed
// may come before any text.
func (rt *runTrace) output() {
	if !rt.replied && rt.round != nil {
		rt.replied = true
		rt.round.AddEvent("toolscope.first_token")
	}
}

// started records what the run runs on, and with content, what was asked.
func (rt *runTrace) started() {
	run := rt.fold.Run
	rt.root.SetAttributes(
		attribute.String("gen_ai.provider.name", run.Backend),
		attribute.String("gen_ai.request.model", run.Model),
		attribute.String("toolscope.mode", string(run.Mode)),
		attribute.String("toolscope.dialect", run.Dialect),
		attribute.StringSlice("toolscope.tools", run.Tools))
	if run.Settings != nil {
		rt.root.SetAttributes(attribute.String("toolscope.settings", string(run.Settings)))
	}
	if rt.content {
		rt.root.SetAttributes(attribute.String("gen_ai.input.messages", inputMessages([]llm.Message{{Role: llm.RoleUser, Content: rt.message}})))
	}
}

// roundStarted opens the round's span, a model call: "chat {model}" in
// chat mode, "text_completion {model}" in raw mode.
func (rt *runTrace) roundStarted(n int) {
	run, round := rt.fold.Run, rt.fold.Round(n)
	operation := "text_completion"
	if run.Mode == llm.ModeChat {
		operation = "chat"
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", operation),
		attribute.String("gen_ai.provider.name", run.Backend),
		attribute.String("gen_ai.request.model", run.Model),
		attribute.String("toolscope.dialect", run.Dialect),
		attribute.Int("toolscope.round", n),
	}
	if round.Input != nil {
		attrs = append(attrs, sampling(round.Input.Options)...)
	}
	_, rt.round = rt.tracer.Start(rt.ctx, operation+" "+run.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	rt.replied = false
}

// sampling are the request's sampling parameters as the conventions name
// them; none that were not asked for.
func sampling(s *llm.Sampling) []attribute.KeyValue {
	if s == nil {
		return nil
	}
	var attrs []attribute.KeyValue
	if s.Temperature != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", *s.Temperature))
	}
	if s.TopP != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.top_p", *s.TopP))
	}
	if s.MaxTokens != nil {
		attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", *s.MaxTokens))
	}
	if s.Seed != nil {
		attrs = append(attrs, attribute.Int64("gen_ai.request.seed", *s.Seed))
	}
	if len(s.Stop) > 0 {
		attrs = append(attrs, attribute.StringSlice("gen_ai.request.stop_sequences", s.Stop))
	}
	return attrs
}

// callRead adds an event for a call the parser refused, or that was cut
// off or written inside thinking.
func (rt *runTrace) callRead(e agent.Event) {
	if rt.round == nil {
		return
	}
	if e.Type == agent.ToolCallInThinking {
		rt.round.AddEvent("toolscope.tool_call.in_thinking")
		return
	}
	c := rt.fold.Round(e.Round).Call(e.Call.Index)
	switch c.State {
	case transcript.Invalid:
		attrs := []attribute.KeyValue{attribute.Int("toolscope.call.index", c.Index), attribute.String("toolscope.refusal", refusal(c.Reason))}
		if rt.content {
			attrs = append(attrs, attribute.String("toolscope.refusal.reason", c.Reason), attribute.String("toolscope.call.raw", c.Raw))
		}
		rt.round.AddEvent("toolscope.tool_call.refused", trace.WithAttributes(attrs...))
	case transcript.Cut:
		rt.round.AddEvent("toolscope.tool_call.cut", trace.WithAttributes(attribute.Int("toolscope.call.index", c.Index)))
	}
}

// roundFinished ends the round's span with the backend's counters and
// what the parser made of the reply.
func (rt *runTrace) roundFinished(n int) {
	if rt.round == nil {
		return
	}
	span, round := rt.round, rt.fold.Round(n)
	rt.round = nil
	defer span.End()
	parsed, refused := 0, 0
	for _, c := range round.Calls {
		switch c.State {
		case transcript.Parsed:
			parsed++
		case transcript.Invalid:
			refused++
		}
	}
	span.SetAttributes(attribute.Int("toolscope.calls.parsed", parsed), attribute.Int("toolscope.calls.refused", refused))
	if s := round.Stats; s != nil {
		span.SetAttributes(
			attribute.String("gen_ai.response.model", rt.fold.Run.Model),
			attribute.Int("gen_ai.usage.input_tokens", s.PromptTokens),
			attribute.Int("gen_ai.usage.output_tokens", s.OutputTokens),
			attribute.Float64("toolscope.time_to_first_token_ms", s.FirstTokenMS))
		if s.DoneReason != "" {
			span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{s.DoneReason}))
		}
	}
	if rt.ctx.Err() != nil {
		span.SetAttributes(attribute.String("toolscope.stopped", string(agent.Cancelled)))
	}
	if rt.content {
		rt.roundContent(span, round)
	}
}

// toolStarted opens the span of a call that runs now.
func (rt *runTrace) toolStarted(round, index int) {
	c := rt.fold.Round(round).Call(index)
	_, rt.tool = rt.tracer.Start(rt.ctx, "execute_tool "+c.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Name),
		attribute.String("gen_ai.tool.call.id", callID(round, index)),
		attribute.Int("toolscope.round", round),
	))
	if rt.content {
		rt.tool.SetAttributes(attribute.String("gen_ai.tool.call.arguments", string(c.RanWith)))
	}
}

// callID names a call of a run: its round and its place in the reply.
func callID(round, index int) string { return fmt.Sprintf("call_%d_%d", round, index) }

// toolFinished ends the span of the call that ran with how it went. A
// result faked at a pause has no span: the tool did not run, and the
// Edited event before it says so.
func (rt *runTrace) toolFinished(round, index int) {
	if rt.tool == nil {
		return
	}
	span, c := rt.tool, rt.fold.Round(round).Call(index)
	rt.tool = nil
	defer span.End()
	outcome := toolOutcome(c)
	span.SetAttributes(attribute.String("toolscope.tool.outcome", outcome))
	if outcome != outcomeOK {
		span.SetAttributes(attribute.String("error.type", outcome))
		span.SetStatus(codes.Error, "the tool call "+outcome)
	}
	if c.Stopped {
		span.SetAttributes(attribute.String("toolscope.stopped", string(agent.Cancelled)))
	}
	if rt.content {
		result := c.Result
		if c.Error != "" {
			result = c.Error
		}
		span.SetAttributes(attribute.String("gen_ai.tool.call.result", result))
	}
}

// stepped adds a pause or an edit of step mode as an event of the span
// in progress: the round's at its input, else the run's.
func (rt *runTrace) stepped(e agent.Event) {
	span := rt.root
	if rt.round != nil {
		span = rt.round
	}
	if e.Type == agent.Paused {
		span.AddEvent("toolscope.paused", trace.WithAttributes(attribute.String("toolscope.pause.at", string(e.Pause.At)), attribute.Int("toolscope.round", e.Round)))
		return
	}
	c := e.Change
	name := "toolscope.edited"
	switch c.What {
	case "result", "error":
		name = "toolscope.faked"
	case "skip":
		name = "toolscope.skipped"
	}
	attrs := []attribute.KeyValue{attribute.String("toolscope.pause.at", string(c.At)), attribute.String("toolscope.edit", c.What), attribute.Int("toolscope.round", e.Round)}
	if c.Call != nil {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.id", callID(e.Round, *c.Call)))
	}
	if rt.content {
		attrs = append(attrs, attribute.String("toolscope.edit.was", string(c.Was)), attribute.String("toolscope.edit.now", string(c.Now)))
	}
	span.AddEvent(name, trace.WithAttributes(attrs...))
}

// failed records a failure the run reports, the backend's, on the run's
// span; it is toolscope's or the backend's text, not the model's.
func (rt *runTrace) failed(e agent.Event) {
	rt.root.AddEvent("exception", trace.WithAttributes(attribute.String("exception.message", e.Error), attribute.Int("toolscope.round", e.Round)))
	rt.root.SetStatus(codes.Error, e.Error)
	rt.root.SetAttributes(attribute.String("error.type", "backend"))
}

// finished ends the run's span, and any span a stop left open, with how
// the run ended.
func (rt *runTrace) finished() {
	end := rt.fold.Finish
	for _, open := range []trace.Span{rt.tool, rt.round} {
		if open != nil {
			open.SetAttributes(attribute.String("toolscope.stopped", string(end.Reason)))
			open.End()
		}
	}
	rt.tool, rt.round = nil, nil
	prompt, output := rt.fold.Usage()
	rt.root.SetAttributes(
		attribute.String("toolscope.run.reason", string(end.Reason)),
		attribute.Int("toolscope.run.rounds", end.Rounds),
		attribute.Int("gen_ai.usage.input_tokens", prompt),
		attribute.Int("gen_ai.usage.output_tokens", output))
	if rt.content && end.Answer != "" {
		rt.root.SetAttributes(attribute.String("gen_ai.output.messages", outputMessage(end.Answer, nil, "", string(end.Reason))))
	}
	rt.root.End()
}
