package telemetry_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The tests here check the attributes and events that TestRunSpans does
// not reach, as the trace store gets them: through telemetry.Start's
// exporter to an in-process receiver.

// engineAgent is the agent of an engine started with settings, closed
// when the test ends.
func engineAgent(t *testing.T, settings engine.Settings) *agent.Agent {
	t.Helper()
	e, err := engine.Start(t.Context(), settings, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s := e.Settings()
	s.Sampling = settings.Sampling // per request: the engine keeps none of its own
	a, err := e.Agent(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// exportRun runs spec through a Hub traced to rc by telemetry.Start, and
// returns once the tracer has sent every span.
func exportRun(t *testing.T, rc *receiver, spec runs.Spec) *runs.Run {
	t.Helper()
	tracer, err := telemetry.Start(t.Context(), rc.url)
	if err != nil || tracer == nil {
		t.Fatalf("Start: %v, %v", tracer, err)
	}
	hub := runs.NewHub(1)
	defer hub.Close()
	hub.Observe(tracer)
	r, err := hub.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events(t.Context(), 0) {
	}
	if err := tracer.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	return r
}

// samplingKeys are the request's sampling parameters, as the GenAI
// conventions name them on a model call's span.
var samplingKeys = []string{"gen_ai.request.temperature", "gen_ai.request.top_p", "gen_ai.request.max_tokens",
	"gen_ai.request.seed", "gen_ai.request.stop_sequences"}

// The sampling a run's settings ask for (a /v1 request's) is on its round's
// span, each parameter as the conventions name it, and in the run's
// recorded settings on the run's span; a run that asks for none has none.
func TestSamplingOnTheRound(t *testing.T) {
	cleanEnv(t)
	temperature, topP, maxTokens, seed := 0.25, 0.875, 256, int64(7)
	sampling := &llm.Sampling{Temperature: &temperature, TopP: &topP, MaxTokens: &maxTokens, Seed: &seed, Stop: []string{"END", "STOP"}}
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: "The answer is 405."}, openaitest.Reply{Text: "The answer is 405."})
	settings := engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: server.URL(), Mode: llm.ModeChat}

	t.Run("asked for", func(t *testing.T) {
		settings := settings
		settings.Sampling = sampling
		rc := newReceiver(t)
		exportRun(t, rc, runs.Spec{Message: "What is 15 times 27?", Agent: engineAgent(t, settings), Source: runs.SourceAPI})
		tr := tree{t, rc.spans}
		round := tr.named("chat "+openaitest.DefaultModel, 1)[0]
		wantAttrs(t, round, map[string]any{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
			"gen_ai.request.max_tokens": maxTokens, "gen_ai.request.seed": int(seed), "gen_ai.request.stop_sequences": []string{"END", "STOP"}})
		got := attrs(round.Attributes)
		for key, want := range map[string]float64{"gen_ai.request.temperature": temperature, "gen_ai.request.top_p": topP} {
			if v, ok := got[key].GetValue().(*commonpb.AnyValue_DoubleValue); !ok || v.DoubleValue != want {
				t.Errorf("the round's %s is %v, want the double %v", key, got[key], want)
			}
		}

		root := tr.named("invoke_agent toolscope", 1)[0]
		var recorded struct{ Sampling *llm.Sampling }
		if err := json.Unmarshal([]byte(attrs(root.Attributes)["toolscope.settings"].GetStringValue()), &recorded); err != nil || !reflect.DeepEqual(recorded.Sampling, sampling) {
			t.Errorf("the run's toolscope.settings holds sampling %+v (%v), want %+v", recorded.Sampling, err, sampling)
		}
		for _, key := range samplingKeys {
			if _, ok := attrs(root.Attributes)[key]; ok {
				t.Errorf("the run's span has %s: it goes on the model call's", key)
			}
		}
	})

	t.Run("none asked for", func(t *testing.T) {
		rc := newReceiver(t)
		exportRun(t, rc, runs.Spec{Message: "What is 15 times 27?", Agent: engineAgent(t, settings)})
		round := tree{t, rc.spans}.named("chat "+openaitest.DefaultModel, 1)[0]
		for _, key := range samplingKeys {
			if v, ok := attrs(round.Attributes)[key]; ok {
				t.Errorf("the round has %s = %v, though the run asked for no sampling", key, v)
			}
		}
	})
}

// sessionRecorder serves an MCP handler over HTTP and keeps the session
// ids its clients' requests carried.
type sessionRecorder struct {
	http.Handler
	mu  sync.Mutex
	ids []string
}

func (s *sessionRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		s.mu.Lock()
		s.ids = append(s.ids, id)
		s.mu.Unlock()
	}
	s.Handler.ServeHTTP(w, r)
}

// Over streamable HTTP, the MCP client span "tools/call {tool}" names the
// session the call went in, mcp.session.id, as the server gave it: the id
// the client's requests carry in Mcp-Session-Id. A server of the
// stateless revision, 2026-07-28, gives no session, and the span names
// none.
func TestMCPSessionID(t *testing.T) {
	cleanEnv(t)
	calculator := mcpserver.Calculator()
	for _, server := range []struct {
		name     string
		handler  http.Handler
		protocol string
		session  bool
	}{
		// The SDK's handler in its session mode refuses server/discover, so
		// the client falls back to initialize, and gets a session.
		{"sessions", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return calculator }, nil), "2025-11-25", true},
		{"stateless", mustHandler(t, calculator), "2026-07-28", false},
	} {
		t.Run(server.name, func(t *testing.T) {
			rec := &sessionRecorder{Handler: server.handler}
			srv := httptest.NewServer(rec)
			t.Cleanup(srv.Close)
			settings := engine.Settings{Backend: engine.BackendDemo, MCP: []mcp.ServerSpec{{Name: "calculator", URL: srv.URL}}}
			rc := newReceiver(t)
			exportRun(t, rc, runs.Spec{Message: "What is 15 times 27?", Agent: engineAgent(t, settings)})
			call := tree{t, rc.spans}.named("tools/call multiply", 1)[0]
			wantAttrs(t, call, map[string]any{"mcp.method.name": "tools/call", "network.transport": "tcp",
				"mcp.protocol.version": server.protocol, "toolscope.mcp.server": "calculator"})

			rec.mu.Lock()
			ids := slices.Compact(slices.Clone(rec.ids))
			rec.mu.Unlock()
			got, has := attrs(call.Attributes)["mcp.session.id"]
			switch {
			case !server.session && (has || len(ids) > 0):
				t.Errorf("without a session, the client sent Mcp-Session-Id %q and the span has mcp.session.id %v", ids, got)
			case !server.session:
			case len(ids) != 1:
				t.Errorf("the client's requests carried session ids %q, want one", ids)
			case got.GetStringValue() != ids[0]:
				t.Errorf("tools/call has mcp.session.id %v, want the session's, %q", got, ids[0])
			}
		})
	}
}

func mustHandler(t *testing.T, s *sdk.Server) http.Handler {
	t.Helper()
	h, err := mcpserver.Handler(s, mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// fourCalls is a reply that calls send_mail four times, in toolscope's
// default dialect: a person at the pauses edits the first call's
// arguments, fakes the second's result and the third's error, and skips
// the fourth.
var fourCalls = func() string {
	var b strings.Builder
	b.WriteString("I will send them.\n")
	for _, to := range []string{"ann", "bob", "cay", "dan"} {
		b.WriteString(`<tool_call>` + "\n" + `{"name": "send_mail", "arguments": {"to": "` + to + `@example.com", "subject": "Standup", "body": "Late."}}` + "\n</tool_call>\n")
	}
	return b.String()
}()

// stepEvent is an event of step mode as a span carries it.
type stepEvent struct {
	name, at, edit, call string
	round                int64
}

// stepEvents are the events of step mode on span, in order.
func stepEvents(span *tracepb.Span) []stepEvent {
	var out []stepEvent
	for _, e := range span.Events {
		switch e.Name {
		case "toolscope.paused", "toolscope.edited", "toolscope.faked", "toolscope.skipped":
			a := attrs(e.Attributes)
			out = append(out, stepEvent{name: e.Name, at: a["toolscope.pause.at"].GetStringValue(), edit: a["toolscope.edit"].GetStringValue(),
				call: a["gen_ai.tool.call.id"].GetStringValue(), round: a["toolscope.round"].GetIntValue()})
		}
	}
	return out
}

// eventNamed is span's event called name whose toolscope.edit is edit.
func eventNamed(t *testing.T, span *tracepb.Span, name, edit string) map[string]*commonpb.AnyValue {
	t.Helper()
	for _, e := range span.Events {
		if a := attrs(e.Attributes); e.Name == name && a["toolscope.edit"].GetStringValue() == edit {
			return a
		}
	}
	t.Fatalf("%q has no event %s with toolscope.edit %q", span.Name, name, edit)
	return nil
}

// A run in step mode, paused at every point and edited at most: its
// pauses and edits are events of the span in progress, the round's while
// the run waits on the model's input, else the run's; a faked or skipped
// call has no execute_tool span; with content, the events say what an
// edit changed, and the call's span the arguments it ran with.
func TestStepModeEvents(t *testing.T) {
	for _, content := range []bool{false, true} {
		name := "without content"
		if content {
			name = "with content"
		}
		t.Run(name, func(t *testing.T) {
			cleanEnv(t)
			if content {
				t.Setenv(telemetry.EnvCaptureContent, "true")
			}
			server := openaitest.New(t)
			server.Reply(openaitest.Reply{Text: fourCalls}, openaitest.Reply{Text: "Three mails went, one did not."})
			a := engineAgent(t, engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: server.URL(), Mode: llm.ModeChat})
			const editedArgs = `{"to":"eve@example.com","subject":"Standup","body":"Later."}`
			fakedResult, fakedError, response := "sent, says the person", "the mail server is down", "the person's responses"
			edits := map[int]agent.Edit{0: {Arguments: json.RawMessage(editedArgs)}, 1: {Result: &fakedResult}, 2: {Error: &fakedError}, 3: {Skip: true}}

			// The test is the run's Stepper, as the agent's API allows,
			// rather than a viewer calling runs.Run.Continue at each paused
			// event: Continue can lose an edit that comes before the run
			// waits on it. The events the tracer reads are the same.
			step := stepper(func(p agent.Pause) agent.Edit {
				switch p.At {
				case agent.AtInput:
					if p.Round > 1 {
						return agent.Edit{}
					}
					// The first request as the person rewrites it.
					edited := *p.Input
					edited.Messages = append(slices.Clone(p.Input.Messages[:len(p.Input.Messages)-1]),
						llm.Message{Role: llm.RoleUser, Content: "Tell the whole team I am late"})
					return agent.Edit{Input: &edited}
				case agent.AtCall:
					return edits[p.Call.Index]
				}
				return agent.Edit{Response: &response}
			})
			rc := newReceiver(t)
			r := exportRun(t, rc, runs.Spec{Message: "Tell the team I am late", Agent: a.Stepping(step)})
			if res, _, _ := r.Outcome(); res.Reason != agent.Answered {
				t.Fatalf("the run ended %q, want answered", res.Reason)
			}

			tr := tree{t, rc.spans}
			rounds := tr.named("chat "+openaitest.DefaultModel, 2)
			root := tr.named("invoke_agent toolscope", 1)[0]
			for _, want := range []struct {
				what   string
				span   *tracepb.Span
				events []stepEvent
			}{
				{"round 1", rounds[0], []stepEvent{{"toolscope.paused", "input", "", "", 1}, {"toolscope.edited", "input", "input", "", 1}}},
				{"the run", root, []stepEvent{
					{"toolscope.paused", "call", "", "", 1}, {"toolscope.edited", "call", "arguments", "call_1_0", 1},
					{"toolscope.paused", "call", "", "", 1}, {"toolscope.faked", "call", "result", "call_1_1", 1},
					{"toolscope.paused", "call", "", "", 1}, {"toolscope.faked", "call", "error", "call_1_2", 1},
					{"toolscope.paused", "call", "", "", 1}, {"toolscope.skipped", "call", "skip", "call_1_3", 1},
					{"toolscope.paused", "response", "", "", 1}, {"toolscope.edited", "response", "response", "", 1},
				}},
				{"round 2", rounds[1], []stepEvent{{"toolscope.paused", "input", "", "", 2}}},
			} {
				if got := stepEvents(want.span); !slices.Equal(got, want.events) {
					t.Errorf("%s's span has the step events\n%+v\nwant\n%+v", want.what, got, want.events)
				}
			}

			// Only the call edited, not faked or skipped, ran.
			tool := tr.named("execute_tool send_mail", 1)[0]
			wantAttrs(t, tool, map[string]any{"gen_ai.tool.call.id": "call_1_0", "toolscope.tool.outcome": "ok"})

			// What an edit changed is content: sent only with the opt-in.
			// (A skip replaced the call with nothing: what it is now is
			// not checked.)
			for _, s := range tr.spans {
				for _, e := range s.Events {
					if e.Name != "toolscope.edited" && e.Name != "toolscope.faked" && e.Name != "toolscope.skipped" {
						continue
					}
					for _, key := range []string{"toolscope.edit.was", "toolscope.edit.now"} {
						_, has := attrs(e.Attributes)[key]
						switch {
						case has && !content:
							t.Errorf("%q's event %s has %s without the opt-in", s.Name, e.Name, key)
						case !has && content && (e.Name != "toolscope.skipped" || key != "toolscope.edit.now"):
							t.Errorf("%q's event %s lacks %s, with content", s.Name, e.Name, key)
						}
					}
				}
			}
			if !content {
				if _, has := attrs(tool.Attributes)["gen_ai.tool.call.arguments"]; has {
					t.Errorf("the call's span has its arguments without the opt-in")
				}
				return
			}
			wantAttrs(t, tool, map[string]any{"gen_ai.tool.call.arguments": editedArgs})
			args := eventNamed(t, root, "toolscope.edited", "arguments")
			if was, now := args["toolscope.edit.was"].GetStringValue(), args["toolscope.edit.now"].GetStringValue(); !strings.Contains(was, "ann@example.com") || now != editedArgs {
				t.Errorf("the edited arguments were %s and are %s, want ann's and %s", was, now, editedArgs)
			}
			for edit, now := range map[string]string{"result": fakedResult, "error": fakedError} {
				if got := eventNamed(t, root, "toolscope.faked", edit)["toolscope.edit.now"].GetStringValue(); got != mustJSON(now) {
					t.Errorf("the faked %s is %s, want %s", edit, got, mustJSON(now))
				}
			}
			if got := eventNamed(t, root, "toolscope.edited", "response")["toolscope.edit.now"].GetStringValue(); got != mustJSON(response) {
				t.Errorf("the edited response is %s, want %s", got, mustJSON(response))
			}
			if got := eventNamed(t, rounds[0], "toolscope.edited", "input")["toolscope.edit.now"].GetStringValue(); !strings.Contains(got, "Tell the whole team I am late") {
				t.Errorf("the edited input is %s, want the person's words", got)
			}
		})
	}
}

// stepper is a Stepper that decides every pause at once.
type stepper func(agent.Pause) agent.Edit

func (s stepper) Step(_ context.Context, p agent.Pause) agent.Edit { return s(p) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// resourceReceiver is a receiver over OTLP/gRPC that keeps, besides the
// spans, the attributes of the resource they came with.
type resourceReceiver struct {
	*receiver
	resource map[string]*commonpb.AnyValue
}

func (rr *resourceReceiver) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	rr.mu.Lock()
	for _, rs := range req.ResourceSpans {
		rr.resource = attrs(rs.Resource.Attributes)
	}
	rr.mu.Unlock()
	return rr.receiver.Export(ctx, req)
}

// newResourceReceiver serves OTLP/gRPC, as newGRPCReceiver does, keeping
// the resource too.
func newResourceReceiver(t *testing.T) *resourceReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rr := &resourceReceiver{receiver: &receiver{url: "http://" + ln.Addr().String()}}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, rr)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return rr
}

// OTEL_RESOURCE_ATTRIBUTES adds to the resource the spans go with, and
// what it names wins over toolscope's own service.name; the resource
// keeps the version and the SDK's attributes.
func TestResourceAttributes(t *testing.T) {
	cleanEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=lab-agent,deployment.environment.name=lab,openinference.project.name=toolscope%20tests")
	rr := newResourceReceiver(t)
	exportRun(t, rr.receiver, runs.Spec{Message: "Hello", Agent: engineAgent(t, engine.Settings{Backend: engine.BackendDemo})})
	tree{t, rr.spans}.named("invoke_agent toolscope", 1)
	rr.mu.Lock()
	resource := rr.resource
	rr.mu.Unlock()
	for key, want := range map[string]string{"service.name": "lab-agent", "deployment.environment.name": "lab",
		"openinference.project.name": "toolscope tests", "telemetry.sdk.language": "go"} {
		if got := resource[key].GetStringValue(); got != want {
			t.Errorf("the resource's %s is %q, want %q", key, got, want)
		}
	}
	if _, ok := resource["service.version"]; !ok {
		t.Errorf("the resource has no service.version: %v", resource)
	}
}

// OTEL_TRACES_SAMPLER (and its argument) decides which runs are traced:
// by default (parentbased_always_on) every run but one whose caller's
// trace context says it is not sampled; always_on that one too, in the
// caller's trace; always_off, or a ratio of 0, none. A run not sampled
// sends no span at all, its MCP call's included.
func TestTracesSampler(t *testing.T) {
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	notSampled := runs.TraceContext{Parent: "00-" + traceID + "-00f067aa0ba902b7-00"}
	for _, tc := range []struct {
		name, sampler, arg string
		trace              runs.TraceContext
		traced             bool
	}{
		{"default", "", "", runs.TraceContext{}, true},
		{"default, caller not sampled", "", "", notSampled, false},
		{"always_on, caller not sampled", "always_on", "", notSampled, true},
		{"always_off", "always_off", "", runs.TraceContext{}, false},
		{"traceidratio 0", "traceidratio", "0", runs.TraceContext{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cleanEnv(t)
			t.Setenv("OTEL_TRACES_SAMPLER", tc.sampler)
			t.Setenv("OTEL_TRACES_SAMPLER_ARG", tc.arg)
			rc := newReceiver(t)
			settings := engine.Settings{Backend: engine.BackendDemo,
				MCP: []mcp.ServerSpec{{Name: "calculator", Command: os.Args[0], Env: map[string]string{roleEnv: "calculator"}}}}
			exportRun(t, rc, runs.Spec{Message: "What is 15 times 27?", Agent: engineAgent(t, settings), Trace: tc.trace})
			tr := tree{t, rc.spans}
			if !tc.traced {
				if len(rc.spans) != 0 {
					t.Errorf("%d spans sent, want none: %v", len(rc.spans), tr.names())
				}
				return
			}
			root := tr.named("invoke_agent toolscope", 1)[0]
			tr.named("tools/call multiply", 1)
			if tc.trace.Parent != "" && hex(root.TraceId) != traceID {
				t.Errorf("the run's span is in trace %s, not the caller's", hex(root.TraceId))
			}
		})
	}
}
