package mcp

import (
	"bytes"
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
// the model). How depends on the revision of MCP. On 2026-07-28 the
// server answers the tools/call with a result whose inputRequests hold
// them (multi round-trip requests, SEP-2322); the SDK calls the handlers
// below under the call's own context, and retries the call with the
// answers. The ask belongs to that call: the Asker of its context
// (tools.AskerOf) answers. On older revisions the server sends requests
// of its own, which the SDK hears on the connection, not on a call, and
// the protocol does not say which call caused them: toolscope answers
// with the Asker of the call in flight on that server; with several (two
// runs calling the same server at once), the one made last. With none,
// the server is refused, saying why.

// codeRefused is the JSON-RPC error code of a refused ask, as the MCP
// spec's examples of a refused sampling request use it.
const codeRefused = -1

// refusal is an ask toolscope does not answer, and why. A server that
// asked by a request of its own gets it as a JSON-RPC error (code
// codeRefused: the SDK keeps the code of the error it wraps). On
// 2026-07-28 the SDK ends the call whose result asked with it, and the
// call's error says that toolscope refused (see call).
type refusal struct{ rpc *jsonrpc.Error }

func refuse(format string, args ...any) error {
	return &refusal{&jsonrpc.Error{Code: codeRefused, Message: fmt.Sprintf(format, args...)}}
}

func (r *refusal) Error() string { return r.rpc.Message }
func (r *refusal) Unwrap() error { return r.rpc }

// askingRequestKey marks the context of a request toolscope sends whose
// result may ask things on 2026-07-28 (tools/call, resources/read,
// prompts/get), by its method: the asks the SDK handles under it belong
// to that request.
type askingRequestKey struct{}

func askingRequest(ctx context.Context, method string) context.Context {
	return context.WithValue(ctx, askingRequestKey{}, method)
}

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
		return a, nil // asked in the result of a call made in a run
	}
	switch during, _ := ctx.Value(askingRequestKey{}).(string); during {
	case "tools/call":
		return nil, outsideRun(method)
	case "":
	default:
		return nil, refuse("toolscope answers %s only while one of this server's tools runs in a run, not during %s", method, during)
	}
	calls := s.tap.inFlight()
	if len(calls) == 0 {
		return nil, refuse("toolscope answers %s only while one of this server's tools runs in a run, and none does", method)
	}
	a := tools.AskerOf(calls[len(calls)-1].ctx)
	if a == nil {
		return nil, outsideRun(method)
	}
	if len(calls) > 1 {
		s.logger.Info("MCP server asked during several calls; the latest answers", "method", method, "calls", len(calls))
	}
	return a, nil
}

// outsideRun refuses an ask during a call made outside a run.
func outsideRun(method string) error {
	return refuse("toolscope cannot answer %s here: the tool was called outside a run (as toolscope tools call does), with nobody to ask", method)
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
		return nil, refuse("%s", err)
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
		return nil, refuse("toolscope does not offer tool use inside sampling (SEP-1577): it did not declare sampling.tools; send the request without tools")
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
				return nil, refuse("toolscope does not offer tool use inside sampling (SEP-1577): a message holds a tool_use or tool_result block")
			}
			parts = append(parts, contentText(c))
		}
		r.Messages = append(r.Messages, tools.SamplingMessage{Role: string(m.Role), Text: strings.Join(parts, "\n")})
	}
	reply, err := a.Sample(ctx, r)
	if err != nil {
		return nil, refuse("%s", err)
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

// elicitSchemas keeps the requestedSchema of the last elicitations
// received, as the server wrote them: in elicitation/create requests, or
// on 2026-07-28 in the inputRequests of a call's result.
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

// elicitParams is the part of elicitation/create's params kept.
type elicitParams struct {
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// observe keeps the schemas of the elicitations in a message received.
// It sees the message before the SDK does.
func (k *elicitSchemas) observe(direction string, m rpcMessage) {
	if direction != received {
		return
	}
	var asked []elicitParams
	switch {
	case m.method == "elicitation/create":
		var r struct {
			Params elicitParams `json:"params"`
		}
		if json.Unmarshal(m.raw, &r) == nil {
			asked = append(asked, r.Params)
		}
	// Only a result that asks is decoded: most are not, and some are big.
	case m.method == "" && bytes.Contains(m.raw, []byte(`"inputRequests"`)):
		var r struct {
			Result struct {
				InputRequests map[string]struct {
					Method string       `json:"method"`
					Params elicitParams `json:"params"`
				} `json:"inputRequests"`
			} `json:"result"`
		}
		if json.Unmarshal(m.raw, &r) != nil {
			return
		}
		for _, ir := range r.Result.InputRequests {
			if ir.Method == "elicitation/create" {
				asked = append(asked, ir.Params)
			}
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range asked {
		if len(p.RequestedSchema) == 0 {
			continue
		}
		k.raw = append(k.raw, p.RequestedSchema)
		if len(k.raw) > keptSchemas {
			k.raw = k.raw[1:]
		}
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
