package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/askstest"
)

// fakeAsker answers a server's asks as a test says, and keeps them.
type fakeAsker struct {
	elicit func(tools.Elicitation) tools.ElicitReply
	sample func(tools.SamplingRequest) (tools.SamplingReply, error)

	mu          sync.Mutex
	elicited    []tools.Elicitation
	sampled     []tools.SamplingRequest
	completions []string
	completed   chan struct{} // closed at the first completion, when not nil
}

func (f *fakeAsker) Elicit(_ context.Context, e tools.Elicitation) (tools.ElicitReply, error) {
	f.mu.Lock()
	f.elicited = append(f.elicited, e)
	f.mu.Unlock()
	return f.elicit(e), nil
}

func (f *fakeAsker) Sample(_ context.Context, s tools.SamplingRequest) (tools.SamplingReply, error) {
	f.mu.Lock()
	f.sampled = append(f.sampled, s)
	f.mu.Unlock()
	return f.sample(s)
}

func (f *fakeAsker) ElicitationCompleted(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completions = append(f.completions, id)
	if f.completed != nil && len(f.completions) == 1 {
		close(f.completed)
	}
}

// callAsks calls the asks server's tool with args, under a, and returns
// its result, error and JSON-RPC messages.
func callAsks(t *testing.T, hub *mcp.Hub, tool, args string, a tools.Asker) (string, error, []tools.WireMessage) {
	t.Helper()
	for _, tl := range hub.Tools() {
		if tl.Name() == tool {
			ctx := t.Context()
			if a != nil {
				ctx = tools.WithAsker(ctx, a)
			}
			var (
				mu   sync.Mutex
				wire []tools.WireMessage
			)
			ctx = tools.WithRecorder(ctx, func(m tools.WireMessage) {
				mu.Lock()
				defer mu.Unlock()
				wire = append(wire, m)
			})
			out, err := tl.Call(ctx, json.RawMessage(args))
			mu.Lock()
			defer mu.Unlock()
			return out, err, slices.Clone(wire)
		}
	}
	t.Fatalf("no tool %s", tool)
	return "", nil, nil
}

// eachRevision runs test on the asks server over stdio and streamable
// HTTP, which speak 2026-07-28, where the server asks in the call's
// result (mrtr); and over SSE, which 2026-07-28 does not define, where it
// asks by requests of its own.
func eachRevision(t *testing.T, test func(t *testing.T, hub *mcp.Hub, mrtr bool)) {
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP, mcp.TransportSSE} {
		t.Run(transport, func(t *testing.T) {
			spec := stdio("asks")
			if transport != mcp.TransportStdio {
				spec = overHTTP(t, "asks", askstest.Server(), transport)
			}
			hub := connect(t, quick, spec)
			if mrtr := hub.Servers()[0].Protocol == "2026-07-28"; mrtr != (transport != mcp.TransportSSE) {
				t.Fatalf("%s speaks %s", transport, hub.Servers()[0].Protocol)
			}
			test(t, hub, transport != mcp.TransportSSE)
		})
	}
}

// wantRounds checks that a call's messages are rounds of tools/call and
// its result, the server asking in all but the last one's result, and
// the call retried with the answers; or one round when not mrtr.
func wantRounds(t *testing.T, wire []tools.WireMessage, mrtr bool, asks int) {
	t.Helper()
	rounds := 1
	if mrtr {
		rounds += asks
	}
	if len(wire) != 2*rounds {
		t.Fatalf("the call exchanged %d messages, want %d rounds: %v", len(wire), rounds, wire)
	}
	for i, m := range wire {
		body := string(m.Body)
		round, last := i/2, i/2 == rounds-1
		switch {
		case i%2 == 0 && (m.Direction != "sent" || !strings.Contains(body, `"method":"tools/call"`) || strings.Contains(body, `"inputResponses"`) != (round > 0)):
			t.Errorf("message %d is not the call, with answers after the first round: %s", i, body)
		case i%2 == 1 && (m.Direction != "received" || strings.Contains(body, `"resultType":"input_required"`) == last || strings.Contains(body, `"inputRequests"`) == last):
			t.Errorf("message %d is not a result that asks, or at last does not: %s", i, body)
		}
	}
}

// A form the server asks for reaches the call's Asker with its schema in
// the server's order, and the person's answer goes back, with the
// defaults of the fields left out filled in.
func TestElicitationReachesTheCallsAsker(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, mrtr bool) {
		a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply {
			return tools.ElicitReply{Action: tools.Accept, Content: map[string]any{"name": "Ada", "guests": 3}}
		}}
		got, err, wire := callAsks(t, hub, "book_table", `{}`, a)
		if err != nil {
			t.Fatal(err)
		}
		if want := `accept {"guests":3,"high_chair":false,"name":"Ada","seating":"in"}`; got != want {
			t.Errorf("the server got %q, want %q", got, want)
		}
		e := a.elicited[0]
		if e.Server != "asks" || e.Mode != tools.ElicitForm || e.Message != "Book a table for tonight?" {
			t.Errorf("elicitation = %+v", e)
		}
		if order := tools.PropertyOrder(e.Schema); strings.Join(order, " ") != "name email seating guests high_chair" {
			t.Errorf("the form's fields come in the order %v, not the server's", order)
		}
		wantRounds(t, wire, mrtr, 1)
	})
}

func TestElicitationDeclined(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, _ bool) {
		a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply { return tools.ElicitReply{Action: tools.Decline} }}
		if got, err, _ := callAsks(t, hub, "book_table", `{}`, a); err != nil || got != "decline null" {
			t.Errorf("got %q, %v; want the server to read a decline", got, err)
		}
	})
}

// A URL-mode elicitation carries its link and id, and the server's notice
// that it is done reaches the same Asker.
func TestURLElicitationAndItsCompletion(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, mrtr bool) {
		a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply { return tools.ElicitReply{Action: tools.Accept} },
			completed: make(chan struct{})}
		got, err, wire := callAsks(t, hub, "connect_account", `{}`, a)
		if err != nil || got != "accept" {
			t.Fatalf("got %q, %v", got, err)
		}
		e := a.elicited[0]
		if e.Mode != tools.ElicitURL || e.URL != askstest.LinkURL || e.ElicitationID != "connect-42" || e.Schema != nil {
			t.Errorf("elicitation = %+v", e)
		}
		if mrtr && (len(wire) < 2 || !strings.Contains(string(wire[1].Body), `"url":"`+askstest.LinkURL+`"`)) {
			t.Errorf("the call's first result does not ask to open the link: %v", wire)
		}
		// The SDK may handle the notice after the call's result.
		select {
		case <-a.completed:
		case <-t.Context().Done():
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if len(a.completions) != 1 || a.completions[0] != "connect-42" {
			t.Errorf("completions = %v, want [connect-42]", a.completions)
		}
	})
}

// A sampling request reaches the Asker as text, with what the server
// asked for, and its reply goes back as the model's message.
func TestSamplingReachesTheCallsAsker(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, mrtr bool) {
		a := &fakeAsker{sample: func(s tools.SamplingRequest) (tools.SamplingReply, error) {
			return tools.SamplingReply{Text: "A cat sat.", Model: "test-model", StopReason: "endTurn"}, nil
		}}
		got, err, wire := callAsks(t, hub, "summarize", `{"text": "The cat sat on the mat."}`, a)
		if err != nil {
			t.Fatal(err)
		}
		if want := "A cat sat. (model test-model, endTurn)"; got != want {
			t.Errorf("the server got %q, want %q", got, want)
		}
		s := a.sampled[0]
		if s.Server != "asks" || s.SystemPrompt != "You summarize texts in one sentence." || s.MaxTokens != 4000 ||
			len(s.Messages) != 1 || s.Messages[0] != (tools.SamplingMessage{Role: "user", Text: "Summarize: The cat sat on the mat."}) {
			t.Errorf("request = %+v", s)
		}
		if !strings.Contains(string(s.ModelPreferences), `"claude-3-haiku"`) {
			t.Errorf("model preferences = %s", s.ModelPreferences)
		}
		wantRounds(t, wire, mrtr, 1)
	})
}

// A tool that asks three times, one ask a round on 2026-07-28, reaches
// the same Asker each time, and the call's messages show every round.
func TestAsksOverSeveralRounds(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, mrtr bool) {
		a := &fakeAsker{sample: func(s tools.SamplingRequest) (tools.SamplingReply, error) {
			return tools.SamplingReply{Text: strings.TrimPrefix(s.Messages[0].Text, "Summarize: "), Model: "m", StopReason: "endTurn"}, nil
		}}
		got, err, wire := callAsks(t, hub, "summarize_times", `{"n": 3}`, a)
		if want := "text 1 (model m, endTurn)\ntext 2 (model m, endTurn)\ntext 3 (model m, endTurn)"; err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		if len(a.sampled) != 3 {
			t.Errorf("the Asker was asked %d times, want 3", len(a.sampled))
		}
		wantRounds(t, wire, mrtr, 3)
	})
}

// What the Asker refuses, and what toolscope cannot answer, reach the
// server as errors that say why; on 2026-07-28 they end the call, whose
// error says so.
func TestAsksRefusedSayWhy(t *testing.T) {
	eachRevision(t, func(t *testing.T, hub *mcp.Hub, mrtr bool) {
		refusing := &fakeAsker{sample: func(tools.SamplingRequest) (tools.SamplingReply, error) {
			return tools.SamplingReply{}, errorString("refused: too many")
		}}
		cases := []struct {
			tool  string
			asker tools.Asker
			want  string
		}{
			{"summarize", refusing, "refused: too many"},
			{"sample_with_tools", refusing, "does not offer tool use inside sampling (SEP-1577)"},
			{"summarize", nil, "the tool was called outside a run"},
			{"book_table", nil, "the tool was called outside a run"},
		}
		for _, c := range cases {
			_, err, _ := callAsks(t, hub, c.tool, `{"text": "x"}`, c.asker)
			if err == nil || !strings.Contains(err.Error(), c.want) ||
				mrtr != strings.Contains(err.Error(), `MCP server "asks" asked for input during the call to `+c.tool+", and toolscope refused: ") {
				t.Errorf("%s: error %v, want one saying %q", c.tool, err, c.want)
			}
		}
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }
