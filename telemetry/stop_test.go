package telemetry_test

import (
	"context"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/telemetry"
	"github.com/toolscope/toolscope/tools"
)

// stalling is a model that writes the start of a reply and then nothing
// more until it is stopped.
type stalling struct{}

func (stalling) Info() llm.Info {
	return llm.Info{Backend: "stalling", Model: "stall", Mode: llm.ModeChat}
}

func (stalling) Prepare(_ context.Context, req llm.Request) (llm.Input, error) {
	return llm.Input{Mode: llm.ModeChat, Messages: req.Messages}, nil
}

func (stalling) Stream(ctx context.Context, _ llm.Input, fn func(llm.Chunk) error) (llm.Stats, error) {
	if err := fn(llm.Chunk{Content: "Let me think"}); err != nil {
		return llm.Stats{}, err
	}
	<-ctx.Done()
	return llm.Stats{}, ctx.Err()
}

// hangingMail is send_mail running until it is stopped.
var hangingMail = tools.Func(tools.SendMail, "Send an email.", json.RawMessage(`{"type": "object"}`),
	func(ctx context.Context, _ map[string]any) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})

// A run stopped in the middle of a model's reply, of a tool call, or at a
// pause of step mode ends every span it opened: the run's says it was
// cancelled, and the round or the call it stopped says toolscope.stopped,
// the call with its outcome, stopped, as an error.
func TestStoppedRunsEndTheirSpans(t *testing.T) {
	registry, err := tools.NewRegistry(hangingMail)
	if err != nil {
		t.Fatal(err)
	}
	calling := agent.New(agent.Config{Backend: demo.New(demo.Config{}), Tools: registry})
	for _, stop := range []struct {
		name     string
		agent    *agent.Agent
		step     bool
		cancelAt agent.Type // the event after which the run is cancelled
		stopped  string     // the span the stop cut short
		want     map[string]string
	}{
		{"mid-round", agent.New(agent.Config{Backend: stalling{}}), false, agent.TextDelta,
			"chat stall", map[string]string{"toolscope.stopped": "cancelled"}},
		{"mid-tool", calling, false, agent.ToolStarted,
			"execute_tool " + tools.SendMail, map[string]string{"toolscope.stopped": "cancelled", "toolscope.tool.outcome": "stopped", "error.type": "stopped"}},
		{"paused at the input", calling, true, agent.Paused,
			"text_completion toolscope-demo", map[string]string{"toolscope.stopped": "cancelled"}},
	} {
		t.Run(stop.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			hub := runs.NewHub(1)
			defer hub.Close()
			hub.Observe(telemetry.NewTracer(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), false))
			r, err := hub.Start(runs.Spec{Message: "Send an email to john@example.com about tomorrow's standup", Agent: stop.agent, Step: stop.step})
			if err != nil {
				t.Fatal(err)
			}
			for e := range r.Events(t.Context(), 0) {
				if e.Type == stop.cancelAt {
					r.Cancel()
				}
			}

			if started, ended := len(rec.Started()), len(rec.Ended()); started != ended {
				t.Errorf("%d spans started, %d ended", started, ended)
			}
			spans := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				spans[s.Name()] = s
			}
			if root := spans["invoke_agent toolscope"]; root == nil || value(root, "toolscope.run.reason") != "cancelled" {
				t.Errorf("the run's span ended as %v, want toolscope.run.reason cancelled", root)
			}
			cut := spans[stop.stopped]
			if cut == nil {
				t.Fatalf("no %s span among %d ended", stop.stopped, len(rec.Ended()))
			}
			for key, want := range stop.want {
				if got := value(cut, attribute.Key(key)); got != want {
					t.Errorf("%s: %s = %q, want %q", stop.stopped, key, got, want)
				}
			}
			if _, isError := stop.want["error.type"]; isError != (cut.Status().Code == codes.Error) {
				t.Errorf("%s: status %v", stop.stopped, cut.Status())
			}
		})
	}
}

// value is span's attribute key, as a string; "" when it has none.
func value(span sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range span.Attributes() {
		if kv.Key == key {
			return kv.Value.Emit()
		}
	}
	return ""
}
