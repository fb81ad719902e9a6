// Command server is the MCP server the conformance suite's server
// scenarios test (`conformance server --url …`): the tools, resources and
// prompts those scenarios call by name, served by toolscope's own
// machinery, mcpserver.Serve, so that it is toolscope's transports that
// are under test, as `toolscope mcp calculator` uses them.
//
//	server --transport http --addr 127.0.0.1:0   # prints its URL
//	toolscope mcp bridge --addr 127.0.0.1:0 -- server   # stdio, behind the bridge
//
// The fixture's contents are the suite's contract, as the Go SDK's own
// conformance server (conformance/everything-server) fulfils it: the
// names, texts and payloads below are what the scenarios check for.
package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcpserver"
)

func main() {
	transport := flag.String("transport", mcpserver.TransportStdio, "stdio, http or sse")
	addr := flag.String("addr", "127.0.0.1:0", "where to listen, over http or sse")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcpserver.Serve(ctx, newServer(), *transport, *addr, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// A 1×1 red PNG and a WAV of silence, as the suite's fixtures have them.
var (
	png = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wav = mustBase64("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolscope-conformance-server", Version: "1.0.0"}, &mcp.ServerOptions{
		// The scenario checks only that completion/complete answers.
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		},
	})
	addTools(s)
	addResources(s)
	addPrompts(s)
	return s
}

// tool adds a tool that takes no arguments.
func tool(s *mcp.Server, name, description string, h func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: description}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		res, err := h(ctx, req)
		return res, nil, err
	})
}

// answer is a tool result of the given content.
func answer(content ...mcp.Content) *mcp.CallToolResult { return &mcp.CallToolResult{Content: content} }

func text(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }

func addTools(s *mcp.Server) {
	tool(s, "test_simple_text", "Tests simple text content response", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(text("This is a simple text response for testing.")), nil
	})
	tool(s, "test_image_content", "Tests image content response", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(&mcp.ImageContent{Data: png, MIMEType: "image/png"}), nil
	})
	tool(s, "test_audio_content", "Tests audio content response", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(&mcp.AudioContent{Data: wav, MIMEType: "audio/wav"}), nil
	})
	tool(s, "test_embedded_resource", "Tests embedded resource content response", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource"}}), nil
	})
	tool(s, "test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(text("This is text content"), &mcp.ImageContent{Data: png, MIMEType: "image/png"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://embedded-in-multiple", MIMEType: "text/plain", Text: "This is an embedded resource"}}), nil
	})
	tool(s, "test_tool_with_logging", "Tests tool that emits log messages during execution", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
				return nil, err
			}
		}
		return answer(text("Tool with logging executed successfully")), nil
	})
	tool(s, "test_tool_with_progress", "Tests tool that reports progress notifications", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for _, p := range []float64{0, 50, 100} {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", p)}); err != nil {
				return nil, err
			}
			// Apart, so that the client sees three notifications, not one
			// burst it may coalesce.
			time.Sleep(50 * time.Millisecond)
		}
		return answer(text(fmt.Sprint(token))), nil
	})
	tool(s, "test_error_handling", "Tests error response handling", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("this tool intentionally returns an error for testing")
	})
	addInputRequiredTools(s)
	addStatelessTools(s)
	addSchemaTools(s)
}

// addSchemaTools adds the tools whose input schemas the suite reads: one
// in JSON Schema 2020-12's vocabulary, which must reach tools/list as
// written, and one that mirrors an argument into an Mcp-Param-* header
// (x-mcp-header), which the server must check against the body.
func addSchemaTools(s *mcp.Server) {
	echo := func(_ context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
		b, err := json.Marshal(args)
		return answer(text("called with " + string(b))), nil, err
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
		InputSchema: json.RawMessage(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
			"properties": {
				"name": {"type": "string"},
				"address": {"$ref": "#/$defs/address"},
				"contactMethod": {"type": "string", "enum": ["phone", "email"]},
				"phone": {"type": "string"},
				"email": {"type": "string"}
			},
			"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
			"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
			"then": {"required": ["phone"]},
			"else": {"required": ["email"]},
			"additionalProperties": false
		}`),
	}, echo)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "test_x_mcp_header",
		Description: "Tests SEP-2243 Mcp-Param-* server-side validation",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"region": {"type": "string", "description": "mirrored into Mcp-Param-Region", "x-mcp-header": "Region"},
				"level": {"type": "integer", "description": "not mirrored"}
			}
		}`),
	}, echo)
}

// addStatelessTools adds the tools by which the server-stateless scenario
// probes protocol 2026-07-28's rules (SEP-2575).
func addStatelessTools(s *mcp.Server) {
	const sep = " (SEP-2575)"
	tool(s, "test_missing_capability", "Requires the sampling client capability; used to verify MissingRequiredClientCapabilityError (-32021)"+sep, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if caps := req.ClientCapabilities(); caps != nil && caps.Sampling != nil {
			return answer(text("Client declared the sampling capability; tool executed.")), nil
		}
		data, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
		if err != nil {
			return nil, err
		}
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "sampling capability required but not declared by client", Data: data}
	})
	// A plain result: a response stream carries no request of the
	// server's own.
	tool(s, "test_streaming_elicitation", "Streams progress notifications while a call is in flight; used to verify response streams carry only notifications, never independent JSON-RPC requests"+sep, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(text("stream observed: result frames only, no top-level requests")), nil
	})
	// The SDK sends the log only to a client that asked for a log level.
	tool(s, "test_logging_tool", "Attempts to emit a log message; the framework must drop it when the client did not set _meta.../logLevel"+sep, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "test_logging_tool executed"}); err != nil {
			return nil, err
		}
		return answer(text("Log attempted; framework gates on _meta.../logLevel.")), nil
	})
	// Adding a tool or a prompt, even one already there, notifies the
	// clients subscribed to list changes.
	tool(s, "test_trigger_tool_change", "Mutates the tool list to trigger a notifications/tools/list_changed on active subscription streams"+sep, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tool(s, "__transient_tool_for_list_changed", "Transient tool used to trigger tools/list_changed", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return answer(), nil
		})
		return answer(text("tools_list_changed published")), nil
	})
	tool(s, "test_trigger_prompt_change", "Mutates the prompt list to trigger a notifications/prompts/list_changed on active subscription streams"+sep, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddPrompt(&mcp.Prompt{Name: "__transient_prompt_for_list_changed", Description: "Transient prompt used to trigger prompts/list_changed"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
		return answer(text("prompts_list_changed published")), nil
	})
}

func addResources(s *mcp.Server) {
	read := func(uri, mime, body string, blob []byte) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: body, Blob: blob}}}
	}
	s.AddResource(&mcp.Resource{Name: "static-text", Description: "A static text resource for testing", MIMEType: "text/plain", URI: "test://static-text"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return read(req.Params.URI, "text/plain", "This is the content of the static text resource.", nil), nil
		})
	s.AddResource(&mcp.Resource{Name: "static-binary", Description: "A static binary resource (image) for testing", MIMEType: "image/png", URI: "test://static-binary"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return read(req.Params.URI, "image/png", "", png), nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "template", Description: "A resource template with parameter substitution", MIMEType: "application/json", URITemplate: "test://template/{id}/data"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			m := templateURI.FindStringSubmatch(req.Params.URI)
			if m == nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return read(req.Params.URI, "application/json", fmt.Sprintf(`{"id": %q, "templateTest": true, "data": "Data for ID: %s"}`, m[1], m[1]), nil), nil
		})
}

var templateURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func addPrompts(s *mcp.Server) {
	prompt := func(description string, msgs ...*mcp.PromptMessage) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Description: description, Messages: msgs}
	}
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return prompt("A simple test prompt", user(text("This is a simple prompt for testing."))), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*mcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return prompt("A prompt with arguments", user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])))), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return prompt("A prompt with an embedded resource",
				user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(text("Please process the embedded resource above."))), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return prompt("A prompt with an image", user(&mcp.ImageContent{Data: png, MIMEType: "image/png"}), user(text("Please analyze the image above."))), nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "MRTR (SEP-2322): asks for context via an in-band elicitation request"},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if c := accepted(req.Params.InputResponses, "user_context"); c != nil {
				return prompt("A prompt with elicited context", user(text(fmt.Sprintf("Context: %v", c["context"])))), nil
			}
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": elicit("Please provide context for the prompt", "context", "string")}}, nil
		})
}

// The multi-round-trip tools of protocol 2026-07-28 (SEP-2322): a tool
// that needs input from the client answers with the requests it needs
// (inputRequests) and, optionally, state it wants back (requestState);
// the client calls again with the answers (inputResponses). The server
// keeps nothing between the calls.

// elicit asks for an object of one required property.
func elicit(message, property, typ string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: &jsonschema.Schema{
		Type: "object", Properties: map[string]*jsonschema.Schema{property: {Type: typ}}, Required: []string{property}}}
}

func askName() *mcp.ElicitParams { return elicit("What is your name?", "name", "string") }

func sample(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{Messages: []*mcp.SamplingMessage{{Role: "user", Content: text(prompt)}}, MaxTokens: maxTokens}
}

// accepted is the content of the elicitation answered under key, when the
// user accepted it.
func accepted(responses mcp.InputResponseMap, key string) map[string]any {
	if r, ok := responses[key].(*mcp.ElicitResult); ok && r != nil && r.Action == "accept" {
		return r.Content
	}
	return nil
}

// sampled is the text of the sampling answered under key.
func sampled(responses mcp.InputResponseMap, key string) (string, bool) {
	r, ok := responses[key].(*mcp.CreateMessageWithToolsResult)
	if !ok || r == nil {
		return "", false
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "(non-text response)", true
}

// tampered is how the suite alters a requestState to see that the server
// refuses it; a real server would sign its state (SEP-2322).
const tampered = "-TAMPERED"

func validState(state string) bool { return state != "" && !strings.HasSuffix(state, tampered) }

func needs(state string, reqs mcp.InputRequestMap) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}
}

func addInputRequiredTools(s *mcp.Server) {
	const mrtr = "MRTR (SEP-2322): "
	// Also the tool of the result-type, missing-input-response,
	// ignore-extra-params and validate-input scenarios: anything but an
	// accepted name is asked again.
	tool(s, "test_input_required_result_elicitation", mrtr+"asks for the caller name via an in-band elicitation request", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if name, _ := accepted(req.Params.InputResponses, "user_name")["name"].(string); name != "" {
			return answer(text(fmt.Sprintf("Hello, %s!", name))), nil
		}
		return needs("", mcp.InputRequestMap{"user_name": askName()}), nil
	})
	tool(s, "test_input_required_result_sampling", mrtr+"asks for an LLM completion via an in-band sampling request", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if t, ok := sampled(req.Params.InputResponses, "capital_question"); ok {
			return answer(text("Sampling response: " + t)), nil
		}
		return needs("", mcp.InputRequestMap{"capital_question": sample("What is the capital of France?", 100)}), nil
	})
	tool(s, "test_input_required_result_list_roots", mrtr+"asks for the client roots via an in-band roots/list request", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r, ok := req.Params.InputResponses["client_roots"].(*mcp.ListRootsResult); ok && r != nil {
			var uris []string
			for _, root := range r.Roots {
				uris = append(uris, root.URI)
			}
			return answer(text(fmt.Sprintf("Client exposed %d root(s): %s", len(r.Roots), strings.Join(uris, ", ")))), nil
		}
		return needs("", mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}), nil
	})
	confirmOrRefuse := func(state string) func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState != "" && !validState(req.Params.RequestState) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: tampered"}
			}
			if req.Params.RequestState != "" && accepted(req.Params.InputResponses, "confirm") != nil {
				return answer(text("state-ok: requestState received and confirmation accepted")), nil
			}
			return needs(state, mcp.InputRequestMap{"confirm": elicit("Please confirm", "ok", "boolean")}), nil
		}
	}
	tool(s, "test_input_required_result_request_state", mrtr+"round-trips integrity-protected requestState alongside an elicitation request", confirmOrRefuse("request_state"))
	tool(s, "test_input_required_result_tampered_state", mrtr+"rejects retries whose requestState fails integrity verification", confirmOrRefuse("tampered_state"))
	tool(s, "test_input_required_result_multiple_inputs", mrtr+"asks for elicitation, sampling and roots input in a single round", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := req.Params.InputResponses
		name, _ := accepted(in, "user_name")["name"].(string)
		greeting, sampledOK := sampled(in, "greeting")
		roots, rootsOK := in["client_roots"].(*mcp.ListRootsResult)
		if name != "" && sampledOK && rootsOK && roots != nil {
			return answer(text(fmt.Sprintf("%s %s — %d root(s) visible", greeting, name, len(roots.Roots)))), nil
		}
		return needs("multiple_inputs", mcp.InputRequestMap{"user_name": askName(), "greeting": sample("Generate a greeting", 50), "client_roots": &mcp.ListRootsParams{}}), nil
	})
	// Two rounds; the state carries the round and the first answer.
	tool(s, "test_input_required_result_multi_round", mrtr+"two elicitation rounds with evolving requestState before completing", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		state, in := req.Params.RequestState, req.Params.InputResponses
		switch {
		case state == "":
			return needs("round=1", mcp.InputRequestMap{"step1": elicit("Step 1: What is your name?", "name", "string")}), nil
		case state == "round=1":
			name, _ := accepted(in, "step1")["name"].(string)
			return needs("round=2;name="+cmp.Or(name, "unknown"), mcp.InputRequestMap{"step2": elicit("Step 2: What is your favorite color?", "color", "string")}), nil
		}
		color, _ := accepted(in, "step2")["color"].(string)
		return answer(text(fmt.Sprintf("Multi-round complete: %s likes %s", strings.TrimPrefix(state, "round=2;name="), cmp.Or(color, "unknown")))), nil
	})
	// Asks only for what the client said it can answer.
	tool(s, "test_input_required_result_capabilities", mrtr+"only requests input kinds the declared client capabilities cover", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.InputResponses) > 0 {
			return answer(text("Capability-aware input requests fulfilled")), nil
		}
		caps, reqs := req.ClientCapabilities(), mcp.InputRequestMap{}
		if caps != nil && caps.Elicitation != nil {
			reqs["user_name"] = askName()
		}
		if caps != nil && caps.Sampling != nil {
			reqs["greeting"] = sample("Generate a short greeting", 50)
		}
		if caps != nil && (caps.RootsV2 != nil || caps.Roots.ListChanged) {
			reqs["client_roots"] = &mcp.ListRootsParams{}
		}
		if len(reqs) == 0 {
			return answer(text("No declared client capability supports an in-band input request")), nil
		}
		return needs("", reqs), nil
	})
}
