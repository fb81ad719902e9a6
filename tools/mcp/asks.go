package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools"
)

// A server asks its client things while a tool runs: elicitation/create
// (a question for the person) and sampling/createMessage (a reply from
// the model). The SDK calls the handlers below on the connection, not on
// the tools/call that caused the request, and the protocol does not say
// which call that was. toolscope answers with the Asker of the call in
// flight on that server (tools.AskerOf its context): with one, that one;
// with several (two runs calling the same server at once), the one made
// last. With none, the server is refused, saying why. On protocol
// 2026-07-28 a server asks in the call's result instead (multi round-trip
// requests), and the SDK calls the handlers under the call's own
// context: its Asker answers.

// codeRefused is the JSON-RPC error code of a refused ask, as the MCP
// spec's examples of a refused sampling request use it.
const codeRefused = -1

// clientCapabilities are what toolscope answers: elicitation in both
// modes, sampling without tools (see sample), and roots when the user
// named some.
func clientCapabilities(roots []string) *sdk.ClientCapabilities {
	return &sdk.ClientCapabilities{
		RootsV2:     rootsCapability(roots),
		Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}},
		Sampling:    &sdk.SamplingCapabilities{},
	}
}

// asker finds the Asker of the call that the server's request of method,
// handled under ctx, belongs to, or the error that refuses the request.
func (s *server) asker(ctx context.Context, method string) (tools.Asker, error) {
	if a := tools.AskerOf(ctx); a != nil {
		return a, nil // a multi round-trip request, under its call's context
	}
	calls := s.tap.inFlight()
	if len(calls) == 0 {
		return nil, &jsonrpc.Error{Code: codeRefused, Message: fmt.Sprintf("toolscope answers %s only while one of this server's tools runs in a run, and none does", method)}
	}
	a := tools.AskerOf(calls[len(calls)-1].ctx)
	if a == nil {
		return nil, &jsonrpc.Error{Code: codeRefused, Message: fmt.Sprintf("toolscope cannot answer %s here: the tool was called outside a run (as toolscope tools call does), with nobody to ask", method)}
	}
	if len(calls) > 1 {
		s.logger.Info("MCP server asked during several calls; the latest answers", "method", method, "calls", len(calls))
	}
	return a, nil
}

// refusal is err as the JSON-RPC error the server gets.
func refusal(err error) error {
	return &jsonrpc.Error{Code: codeRefused, Message: err.Error()}
}

// elicit handles elicitation/create. The SDK has checked the schema (flat,
// primitive properties) and checks an accepted form's content against
// it, filling in the defaults of the fields left out.
func (s *server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	a, err := s.asker(ctx, "elicitation/create")
	if err != nil {
		return nil, err
	}
	p := req.Params
	e := tools.Elicitation{Server: s.name, Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if e.Mode == "" {
		e.Mode = tools.ElicitForm // as the SDK infers it
		if p.URL != "" || p.ElicitationID != "" {
			e.Mode = tools.ElicitURL
		}
	}
	if e.Mode == tools.ElicitForm && p.RequestedSchema != nil {
		e.Schema = s.tap.asks.schema(p.RequestedSchema)
	}
	reply, err := a.Elicit(ctx, e)
	if err != nil {
		return nil, refusal(err)
	}
	if e.Mode == tools.ElicitURL && reply.Action == tools.Accept && e.ElicitationID != "" {
		// Its completion may come once the call is over, or during another.
		s.tap.asks.awaited.Store(e.ElicitationID, a)
	}
	return &sdk.ElicitResult{Action: reply.Action, Content: reply.Content}, nil
}

// elicitationComplete handles notifications/elicitation/complete, the end
// of a URL-mode elicitation.
func (s *server) elicitationComplete(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
	a, ok := s.tap.asks.awaited.LoadAndDelete(req.Params.ElicitationID)
	if !ok {
		s.logger.Info("MCP server finished an elicitation toolscope did not accept", "elicitation", req.Params.ElicitationID)
		return
	}
	a.(tools.Asker).ElicitationCompleted(req.Params.ElicitationID)
}

// sample handles sampling/createMessage. Tool use inside sampling
// (SEP-1577) is refused: the run's model answers as a writer of text,
// and toolscope does not run a server's tools for it. Capabilities say
// so (no sampling.tools), but a server may send them anyway.
func (s *server) sample(ctx context.Context, req *sdk.CreateMessageWithToolsRequest) (*sdk.CreateMessageWithToolsResult, error) {
	a, err := s.asker(ctx, "sampling/createMessage")
	if err != nil {
		return nil, err
	}
	p := req.Params
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		return nil, &jsonrpc.Error{Code: codeRefused, Message: "toolscope does not offer tool use inside sampling (SEP-1577): it did not declare sampling.tools; send the request without tools"}
	}
	r := tools.SamplingRequest{Server: s.name, SystemPrompt: p.SystemPrompt, MaxTokens: int(p.MaxTokens),
		IncludeContext: p.IncludeContext, StopSequences: p.StopSequences}
	if p.Temperature != 0 {
		r.Temperature = &p.Temperature
	}
	if p.ModelPreferences != nil {
		r.ModelPreferences, _ = json.Marshal(p.ModelPreferences) // plain numbers and strings
	}
	for _, m := range p.Messages {
		var parts []string
		for _, c := range m.Content {
			switch c.(type) {
			case *sdk.ToolUseContent, *sdk.ToolResultContent:
				return nil, &jsonrpc.Error{Code: codeRefused, Message: "toolscope does not offer tool use inside sampling (SEP-1577): a message holds a tool_use or tool_result block"}
			}
			parts = append(parts, contentText(c))
		}
		r.Messages = append(r.Messages, tools.SamplingMessage{Role: string(m.Role), Text: strings.Join(parts, "\n")})
	}
	reply, err := a.Sample(ctx, r)
	if err != nil {
		return nil, refusal(err)
	}
	return &sdk.CreateMessageWithToolsResult{Content: []sdk.Content{&sdk.TextContent{Text: reply.Text}},
		Model: reply.Model, Role: "assistant", StopReason: reply.StopReason}, nil
}

// inFlight lists the calls in flight, the one made first first.
func (t *wiretap) inFlight() []*tappedCall {
	t.mu.Lock()
	calls := make([]*tappedCall, 0, len(t.tokens))
	for _, c := range t.tokens {
		calls = append(calls, c)
	}
	t.mu.Unlock()
	slices.SortFunc(calls, func(a, b *tappedCall) int { return callNumber(a) - callNumber(b) })
	return calls
}

// callNumber is n of a call's progress token, "toolscope-n" (see track).
func callNumber(c *tappedCall) int {
	token, _ := strconv.Unquote(c.token)
	n, _ := strconv.Atoi(strings.TrimPrefix(token, "toolscope-"))
	return n
}

// The SDK decodes an elicitation's requestedSchema into a map, which
// forgets the order of its properties: the order the server asks its
// questions in, which the form keeps. As for tools' schemas (see
// listedSchemas), the wiretap keeps the schemas as the server wrote them.

// elicitSchemas keeps the requestedSchema of the last elicitation/create
// requests received, as the server wrote them.
type elicitSchemas struct {
	mu  sync.Mutex
	raw []json.RawMessage // oldest first

	// awaited are the Askers of the URL-mode elicitations accepted, by
	// elicitation id, until the server says each is done.
	awaited sync.Map
}

// keptSchemas bounds elicitSchemas: a server asks one question at a time,
// or a few.
const keptSchemas = 8

// observe keeps the schema of an elicitation/create request received. It
// sees the request before the SDK does.
func (k *elicitSchemas) observe(direction string, m rpcMessage) {
	if direction != received || m.method != "elicitation/create" {
		return
	}
	var r struct {
		Params struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	if json.Unmarshal(m.raw, &r) != nil || len(r.Params.RequestedSchema) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.raw = append(k.raw, r.Params.RequestedSchema)
	if len(k.raw) > keptSchemas {
		k.raw = k.raw[1:]
	}
}

// schema is the server's own text of decoded, the schema the SDK decoded,
// when it is kept; else decoded as JSON writes a map.
func (k *elicitSchemas) schema(decoded any) json.RawMessage {
	data, err := json.Marshal(decoded)
	if err != nil {
		return nil // a schema the SDK decoded from JSON
	}
	var want any
	_ = json.Unmarshal(data, &want)
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, raw := range k.raw {
		var got any
		if json.Unmarshal(raw, &got) == nil && reflect.DeepEqual(got, want) {
			k.raw = slices.Delete(k.raw, i, i+1)
			return raw
		}
	}
	return data
}
