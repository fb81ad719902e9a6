// Package askstest is an MCP server whose tools ask their client things
// while they run, for tests of how toolscope answers: a form to fill in
// (elicitation), a link to open (URL-mode elicitation), and a reply from
// the model (sampling). They ask as a server of the call's revision does:
// in the call's result on 2026-07-28, by a request of their own before.
package askstest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FormSchema is the form the book_table tool asks to have filled in: a
// string with a format, a titled enum, a bounded integer with a default,
// and a boolean.
const FormSchema = `{"type": "object", "properties": {
	"name": {"type": "string", "title": "Your name", "minLength": 1},
	"email": {"type": "string", "title": "Email", "format": "email"},
	"seating": {"type": "string", "title": "Seating", "oneOf": [{"const": "in", "title": "Inside"}, {"const": "out", "title": "On the terrace"}], "default": "in"},
	"guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 8, "default": 2},
	"high_chair": {"type": "boolean", "title": "High chair", "default": false}
}, "required": ["name", "guests"]}`

// DefaultsSchema is a form every required field of which has a default.
const DefaultsSchema = `{"type": "object", "properties": {
	"units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
	"digits": {"type": "integer", "minimum": 0, "maximum": 6, "default": 2}
}, "required": ["units"]}`

// LinkURL is where the connect_account tool sends the person.
const LinkURL = "https://example.com/connect?session=42"

// Server is the server. Its tools:
//
//   - book_table: asks the form FormSchema, and says what came back.
//   - choose_units: asks the form DefaultsSchema.
//   - connect_account: asks the person to open LinkURL, then, when they
//     accept, tells the client the link's task is done.
//   - summarize {"text"}: asks the model to summarize text in a sentence
//     (sampling), and returns its reply.
//   - summarize_times {"n"}: asks the model n times, returning the
//     replies or the first refusal.
//   - sample_with_tools: asks the model with a tool it may use.
func Server() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "asks", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "book_table", Description: "Book a table: asks who and how many", InputSchema: object(`{}`)},
		form(FormSchema, "Book a table for tonight?"))
	s.AddTool(&sdk.Tool{Name: "choose_units", Description: "Asks which units to use", InputSchema: object(`{}`)},
		form(DefaultsSchema, "Which units?"))
	s.AddTool(&sdk.Tool{Name: "connect_account", Description: "Connect an account through a link", InputSchema: object(`{}`)}, connect)
	s.AddTool(&sdk.Tool{Name: "summarize", Description: "Summarize a text in a sentence, with the client's model",
		InputSchema: object(`{"properties": {"text": {"type": "string"}}, "required": ["text"]}`)}, summarize)
	s.AddTool(&sdk.Tool{Name: "summarize_times", Description: "Ask the client's model n times",
		InputSchema: object(`{"properties": {"n": {"type": "integer"}}, "required": ["n"]}`)}, summarizeTimes)
	s.AddTool(&sdk.Tool{Name: "sample_with_tools", Description: "Ask the client's model with a tool", InputSchema: object(`{}`)}, sampleWithTools)
	return s
}

func object(props string) json.RawMessage {
	var m map[string]any
	_ = json.Unmarshal([]byte(props), &m)
	m["type"] = "object"
	raw, _ := json.Marshal(m)
	return raw
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func failed(err error) (*sdk.CallToolResult, error) {
	res := text(err.Error())
	res.IsError = true
	return res, nil
}

// The tools ask the way a server of the call's revision does. On
// 2026-07-28 a server may not send requests of its own while it serves
// one: a tool answers the call with a result whose InputRequests say what
// it needs (multi round-trip requests, SEP-2322), and the client retries
// the call with the answers in InputResponses, and RequestState echoed.
// A handler so runs once per round, picking up where RequestState says.
// On older revisions the tool sends the request to the client, and waits
// for the answer.

// Ask returns the client's answer to r, which the tool's handler knows as
// key; or, on 2026-07-28 in a round that has no answer to it yet, the
// result that asks for it, for the handler to return (with its
// RequestState set, if it has more than one round). A sampling request is
// a CreateMessageWithToolsParams, whose answer is the same type on every
// revision.
func Ask(ctx context.Context, req *sdk.CallToolRequest, key string, r sdk.InputRequest) (sdk.InputResponse, *sdk.CallToolResult, error) {
	if p := req.Session.InitializeParams(); p != nil && p.ProtocolVersion >= "2026-07-28" {
		if answer, ok := req.Params.InputResponses[key]; ok {
			return answer, nil, nil
		}
		return nil, &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{key: r}}, nil
	}
	var answer sdk.InputResponse
	var err error
	switch r := r.(type) {
	case *sdk.ElicitParams:
		answer, err = req.Session.Elicit(ctx, r)
	case *sdk.CreateMessageWithToolsParams:
		answer, err = req.Session.CreateMessageWithTools(ctx, r)
	case *sdk.ListRootsParams:
		answer, err = req.Session.ListRoots(ctx, r)
	default:
		err = fmt.Errorf("askstest cannot ask a %T", r)
	}
	return answer, nil, err
}

// form is a tool that asks schema with message, and says what came back:
// the action and the content as JSON.
func form(schema, message string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		answer, pending, err := Ask(ctx, req, "form", &sdk.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
		if err != nil {
			return failed(err)
		}
		if pending != nil {
			return pending, nil
		}
		res := answer.(*sdk.ElicitResult)
		content, _ := json.Marshal(res.Content)
		return text(fmt.Sprintf("%s %s", res.Action, content)), nil
	}
}

func connect(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	answer, pending, err := Ask(ctx, req, "link", &sdk.ElicitParams{Mode: "url", Message: "Sign in to connect your account", URL: LinkURL, ElicitationID: "connect-42"})
	if err != nil {
		return failed(err)
	}
	if pending != nil {
		return pending, nil
	}
	res := answer.(*sdk.ElicitResult)
	if res.Action == "accept" {
		// The person signed in at the link: the server says so.
		if err := req.Session.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: "connect-42"}); err != nil {
			return failed(err)
		}
	}
	return text(res.Action), nil
}

func summarize(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct{ Text string }
	_ = json.Unmarshal(req.Params.Arguments, &args)
	reply, pending, err := summary(ctx, req, "summary", args.Text)
	if err != nil {
		return failed(err)
	}
	if pending != nil {
		return pending, nil
	}
	return text(reply), nil
}

// summarizeTimes asks in n rounds on 2026-07-28, one request a round, and
// keeps the replies so far in its RequestState.
func summarizeTimes(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct{ N int }
	_ = json.Unmarshal(req.Params.Arguments, &args)
	var replies []string
	if state := req.Params.RequestState; state != "" {
		if err := json.Unmarshal([]byte(state), &replies); err != nil {
			return nil, fmt.Errorf("requestState %q is not the one this tool gave: %w", state, err)
		}
	}
	for i := len(replies) + 1; i <= args.N; i++ {
		reply, pending, err := summary(ctx, req, fmt.Sprintf("summary-%d", i), fmt.Sprintf("text %d", i))
		if err != nil {
			return failed(fmt.Errorf("request %d: %w", i, err))
		}
		if pending != nil {
			state, _ := json.Marshal(replies)
			pending.RequestState = string(state)
			return pending, nil
		}
		replies = append(replies, reply)
	}
	return text(strings.Join(replies, "\n")), nil
}

// summary asks the client's model to summarize s.
func summary(ctx context.Context, req *sdk.CallToolRequest, key, s string) (string, *sdk.CallToolResult, error) {
	answer, pending, err := Ask(ctx, req, key, &sdk.CreateMessageWithToolsParams{
		SystemPrompt:     "You summarize texts in one sentence.",
		Messages:         []*sdk.SamplingMessageV2{{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "Summarize: " + s}}}},
		MaxTokens:        4000,
		ModelPreferences: &sdk.ModelPreferences{Hints: []*sdk.ModelHint{{Name: "claude-3-haiku"}}, SpeedPriority: 0.8},
	})
	if pending != nil || err != nil {
		return "", pending, err
	}
	res := answer.(*sdk.CreateMessageWithToolsResult)
	if len(res.Content) != 1 {
		return "", nil, fmt.Errorf("the reply has %d content blocks, not one text", len(res.Content))
	}
	t, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return "", nil, fmt.Errorf("the reply is %T, not text", res.Content[0])
	}
	return fmt.Sprintf("%s (model %s, %s)", t.Text, res.Model, res.StopReason), nil, nil
}

func sampleWithTools(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	_, pending, err := Ask(ctx, req, "weather", &sdk.CreateMessageWithToolsParams{
		Messages:  []*sdk.SamplingMessageV2{{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "What is the weather?"}}}},
		MaxTokens: 100,
		Tools:     []*sdk.Tool{{Name: "weather", InputSchema: object(`{}`)}},
	})
	if err != nil {
		return failed(err)
	}
	if pending != nil {
		return pending, nil
	}
	return text("sampled"), nil
}
