package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/mcpserver"
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

// callAsks calls the asks server's tool with args, under a.
func callAsks(t *testing.T, hub *mcp.Hub, tool, args string, a tools.Asker) (string, error) {
	t.Helper()
	for _, tl := range hub.Tools() {
		if tl.Name() == tool {
			ctx := t.Context()
			if a != nil {
				ctx = tools.WithAsker(ctx, a)
			}
			return tl.Call(ctx, json.RawMessage(args))
		}
	}
	t.Fatalf("no tool %s", tool)
	return "", nil
}

// A form the server asks for reaches the call's Asker with its schema in
// the server's order, and the person's answer goes back, with the
// defaults of the fields left out filled in; over stdio and HTTP.
func TestElicitationReachesTheCallsAsker(t *testing.T) {
	for _, spec := range []mcp.ServerSpec{stdio("asks"), overHTTP(t, "asks", askstest.Server(), mcpserver.TransportHTTP)} {
		t.Run(spec.Transport, func(t *testing.T) {
			hub := connect(t, quick, spec)
			a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply {
				return tools.ElicitReply{Action: tools.Accept, Content: map[string]any{"name": "Ada", "guests": 3}}
			}}
			got, err := callAsks(t, hub, "book_table", `{}`, a)
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
		})
	}
}

func TestElicitationDeclined(t *testing.T) {
	hub := connect(t, quick, overHTTP(t, "asks", askstest.Server(), mcpserver.TransportHTTP))
	a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply { return tools.ElicitReply{Action: tools.Decline} }}
	if got, err := callAsks(t, hub, "book_table", `{}`, a); err != nil || got != "decline null" {
		t.Errorf("got %q, %v; want the server to read a decline", got, err)
	}
}

// A URL-mode elicitation carries its link and id, and the server's notice
// that it is done reaches the same Asker.
func TestURLElicitationAndItsCompletion(t *testing.T) {
	hub := connect(t, quick, overHTTP(t, "asks", askstest.Server(), mcpserver.TransportHTTP))
	a := &fakeAsker{elicit: func(tools.Elicitation) tools.ElicitReply { return tools.ElicitReply{Action: tools.Accept} },
		completed: make(chan struct{})}
	if got, err := callAsks(t, hub, "connect_account", `{}`, a); err != nil || got != "accept" {
		t.Fatalf("got %q, %v", got, err)
	}
	e := a.elicited[0]
	if e.Mode != tools.ElicitURL || e.URL != askstest.LinkURL || e.ElicitationID != "connect-42" || e.Schema != nil {
		t.Errorf("elicitation = %+v", e)
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
}

// A sampling request reaches the Asker as text, with what the server
// asked for, and its reply goes back as the model's message.
func TestSamplingReachesTheCallsAsker(t *testing.T) {
	hub := connect(t, quick, overHTTP(t, "asks", askstest.Server(), mcpserver.TransportHTTP))
	a := &fakeAsker{sample: func(s tools.SamplingRequest) (tools.SamplingReply, error) {
		return tools.SamplingReply{Text: "A cat sat.", Model: "test-model", StopReason: "endTurn"}, nil
	}}
	got, err := callAsks(t, hub, "summarize", `{"text": "The cat sat on the mat."}`, a)
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
}

// What the Asker refuses, and what toolscope cannot answer, reach the
// server as errors that say why.
func TestAsksRefusedSayWhy(t *testing.T) {
	hub := connect(t, quick, overHTTP(t, "asks", askstest.Server(), mcpserver.TransportHTTP))
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
		_, err := callAsks(t, hub, c.tool, `{"text": "x"}`, c.asker)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.tool, err, c.want)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }
