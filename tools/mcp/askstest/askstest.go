// Package askstest is an MCP server whose tools ask their client things
// while they run, for tests of how toolscope answers: a form to fill in
// (elicitation), a link to open (URL-mode elicitation), and a reply from
// the model (sampling).
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

// form is a tool that asks schema with message, and says what came back:
// the action and the content as JSON.
func form(schema, message string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
		if err != nil {
			return failed(err)
		}
		content, _ := json.Marshal(res.Content)
		return text(fmt.Sprintf("%s %s", res.Action, content)), nil
	}
}

func connect(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in to connect your account", URL: LinkURL, ElicitationID: "connect-42"})
	if err != nil {
		return failed(err)
	}
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
	reply, err := ask(ctx, req.Session, args.Text)
	if err != nil {
		return failed(err)
	}
	return text(reply), nil
}

func summarizeTimes(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct{ N int }
	_ = json.Unmarshal(req.Params.Arguments, &args)
	var replies []string
	for i := range args.N {
		reply, err := ask(ctx, req.Session, fmt.Sprintf("text %d", i+1))
		if err != nil {
			return failed(fmt.Errorf("request %d: %w", i+1, err))
		}
		replies = append(replies, reply)
	}
	return text(strings.Join(replies, "\n")), nil
}

// ask asks the client's model to summarize s.
func ask(ctx context.Context, session *sdk.ServerSession, s string) (string, error) {
	res, err := session.CreateMessage(ctx, &sdk.CreateMessageParams{
		SystemPrompt:     "You summarize texts in one sentence.",
		Messages:         []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Summarize: " + s}}},
		MaxTokens:        4000,
		ModelPreferences: &sdk.ModelPreferences{Hints: []*sdk.ModelHint{{Name: "claude-3-haiku"}}, SpeedPriority: 0.8},
	})
	if err != nil {
		return "", err
	}
	t, ok := res.Content.(*sdk.TextContent)
	if !ok {
		return "", fmt.Errorf("the reply is %T, not text", res.Content)
	}
	return fmt.Sprintf("%s (model %s, %s)", t.Text, res.Model, res.StopReason), nil
}

func sampleWithTools(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	_, err := req.Session.CreateMessageWithTools(ctx, &sdk.CreateMessageWithToolsParams{
		Messages:  []*sdk.SamplingMessageV2{{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "What is the weather?"}}}},
		MaxTokens: 100,
		Tools:     []*sdk.Tool{{Name: "weather", InputSchema: object(`{}`)}},
	})
	if err != nil {
		return failed(err)
	}
	return text("sampled"), nil
}
