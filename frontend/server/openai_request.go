package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// chatRequest is the body of POST /v1/chat/completions, as OpenAI's Chat
// Completions API defines it. Fields toolscope does not know are ignored,
// as OpenAI's SDKs expect of a compatible server; the ones it knows but
// cannot honour are refused by check.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	Stream              bool            `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int64          `json:"seed"`

	// Refused when they ask for what toolscope cannot give.
	N           *int            `json:"n"`
	Logprobs    *bool           `json:"logprobs"`
	TopLogprobs *int            `json:"top_logprobs"`
	Audio       json.RawMessage `json:"audio"`
	Modalities  []string        `json:"modalities"`

	// sampling is what the fields above ask of the model's replies, as
	// check found them; nil when they ask nothing.
	sampling *llm.Sampling
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message of the request's history.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, text parts, or null
	ToolCalls  []chatToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// chatToolCall is a call in an assistant message, or in a response.
type chatToolCall struct {
	Index    *int         `json:"index,omitempty"` // in stream deltas only
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // a JSON object, as text
}

// chatTool is a function the client offers, and runs itself.
type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// apiError is a request toolscope refuses, with its status; the OpenAI
// API's errors also name the field at fault and a code.
type apiError struct {
	Status  int
	Message string
	Param   string // the request field at fault, as OpenAI names it
	Code    string
}

func (e *apiError) Error() string { return e.Message }

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{Status: 400, Message: fmt.Sprintf(format, args...), Param: param}
}

// decodeChat reads a request body; unknown fields are ignored.
func decodeChat(body []byte) (*chatRequest, error) {
	var req chatRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, badRequest("", `the body is empty: send a JSON object such as {"model": "toolscope-demo", "messages": [{"role": "user", "content": "hi"}]}`)
		}
		return nil, badRequest("", "the body is not a valid chat completion request: %s", decodeProblem(reflect.TypeOf(&req), err))
	}
	if dec.More() {
		return nil, badRequest("", "the body holds more than one JSON value")
	}
	return &req, req.check()
}

// check refuses what toolscope cannot honour, naming the field.
func (req *chatRequest) check() error {
	switch {
	case req.Model == "":
		return badRequest("model", `"model" is missing: GET /v1/models lists the models served`)
	case len(req.Messages) == 0:
		return badRequest("messages", `"messages" is empty: send at least one user message`)
	case req.N != nil && *req.N > 1:
		return badRequest("n", "n is %d: toolscope writes one choice per request", *req.N)
	case req.Logprobs != nil && *req.Logprobs, req.TopLogprobs != nil && *req.TopLogprobs > 0:
		return badRequest("logprobs", "log probabilities are not available through toolscope")
	case len(req.Audio) > 0 && string(req.Audio) != "null":
		return badRequest("audio", "audio output is not available through toolscope")
	}
	for _, m := range req.Modalities {
		if m != "text" {
			return badRequest("modalities", "modality %q is not available through toolscope: only text", m)
		}
	}
	if err := req.checkTools(); err != nil {
		return err
	}
	if _, err := req.choice(); err != nil {
		return err
	}
	var err error
	req.sampling, err = req.readSampling()
	return err
}

// What a request's tools may be, together; each tool's own bounds are
// the tools package's. Compiling a schema costs about a second per MiB,
// so the sum is what bounds the work a request can ask for.
const (
	maxTools            = 128 // OpenAI's own limit
	maxToolsSchemaBytes = 512 << 10
)

// checkTools refuses tools that are not functions, names a model could
// not write or a page should not show, and schemas too large or too deep
// to compile, before any other work is done for the request.
func (req *chatRequest) checkTools() error {
	if len(req.Tools) > maxTools {
		return badRequest("tools", "%d tools were sent: at most %d", len(req.Tools), maxTools)
	}
	total := 0
	for i, t := range req.Tools {
		if t.Type != "function" || t.Function.Name == "" {
			return badRequest(fmt.Sprintf("tools[%d]", i), `tools[%d] must be {"type": "function", "function": {"name": …}}`, i)
		}
		if err := tools.CheckName(t.Function.Name); err != nil {
			return badRequest(fmt.Sprintf("tools[%d].function.name", i), "tools[%d]: %v", i, err)
		}
		if err := tools.CheckSchemaBounds(t.Function.Parameters); err != nil {
			return badRequest(fmt.Sprintf("tools[%d].function.parameters", i), "tools[%d] (%s): %v", i, t.Function.Name, err)
		}
		total += len(t.Function.Parameters)
	}
	if total > maxToolsSchemaBytes {
		return badRequest("tools", "the tools' parameters schemas are %d KiB together: at most %d KiB", total>>10, maxToolsSchemaBytes>>10)
	}
	return nil
}

// readSampling checks the sampling fields against OpenAI's ranges and
// gathers them. max_completion_tokens, OpenAI's newer name, wins over
// max_tokens when both are sent.
func (req *chatRequest) readSampling() (*llm.Sampling, error) {
	o := llm.Sampling{Temperature: req.Temperature, TopP: req.TopP, Seed: req.Seed, MaxTokens: req.MaxTokens}
	maxParam := "max_tokens"
	if req.MaxCompletionTokens != nil {
		o.MaxTokens, maxParam = req.MaxCompletionTokens, "max_completion_tokens"
	}
	switch {
	case o.Temperature != nil && (*o.Temperature < 0 || *o.Temperature > 2):
		return nil, badRequest("temperature", "temperature is %v: it must be from 0 to 2", *o.Temperature)
	case o.TopP != nil && (*o.TopP < 0 || *o.TopP > 1):
		return nil, badRequest("top_p", "top_p is %v: it must be from 0 to 1", *o.TopP)
	case o.MaxTokens != nil && *o.MaxTokens < 1:
		return nil, badRequest(maxParam, "%s is %d: it must be at least 1", maxParam, *o.MaxTokens)
	}
	var err error
	if o.Stop, err = stopStrings(req.Stop); err != nil {
		return nil, err
	}
	if o.Temperature == nil && o.TopP == nil && o.Seed == nil && o.MaxTokens == nil && len(o.Stop) == 0 {
		return nil, nil
	}
	return &o, nil
}

// stopStrings reads stop: a string, a list of them, or null. Empty
// strings are left out: they would end a reply before it starts on some
// servers and be ignored by others.
func stopStrings(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil, badRequest("stop", "stop must be a string or a list of strings")
		}
		list = []string{one}
	}
	return slices.DeleteFunc(list, func(s string) bool { return s == "" }), nil
}

// toolChoice is what tool_choice asks for.
type toolChoice struct {
	mode string // "auto", "none" or "required"
	name string // the one function that must be called, if named
}

func (req *chatRequest) choice() (toolChoice, error) {
	if len(req.ToolChoice) == 0 || string(req.ToolChoice) == "null" {
		return toolChoice{mode: "auto"}, nil
	}
	var mode string
	if json.Unmarshal(req.ToolChoice, &mode) == nil {
		switch mode {
		case "auto", "none", "required":
			return toolChoice{mode: mode}, nil
		}
		return toolChoice{}, badRequest("tool_choice", `tool_choice %q must be "auto", "none", "required" or a named function`, mode)
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(req.ToolChoice, &named) != nil || named.Type != "function" {
		return toolChoice{}, badRequest("tool_choice", `tool_choice must be "auto", "none", "required" or {"type": "function", "function": {"name": …}}`)
	}
	for _, t := range req.Tools {
		if t.Function.Name == named.Function.Name {
			return toolChoice{mode: "required", name: named.Function.Name}, nil
		}
	}
	return toolChoice{}, badRequest("tool_choice", "tool_choice names %q, which is not in tools", named.Function.Name)
}

// toolset says which tools the run offers: the client's when it sent
// some (a named choice offers only that one, "none" none), toolscope's
// own when it sent none, the stubs only if the server offers them.
func (req *chatRequest) toolset(stubs bool) engine.Toolset {
	choice, _ := req.choice() // check passed
	if choice.mode == "none" {
		return engine.Toolset{Caller: []tools.Tool{}}
	}
	if len(req.Tools) == 0 {
		return engine.Toolset{NoBuiltin: !stubs}
	}
	caller := []tools.Tool{}
	for _, t := range req.Tools {
		if choice.name == "" || choice.name == t.Function.Name {
			caller = append(caller, agent.CallerTool{ToolName: t.Function.Name, ToolDescription: t.Function.Description, Schema: t.Function.Parameters})
		}
	}
	return engine.Toolset{Caller: caller}
}

// oneCall reports whether the client wants at most one call per reply.
func (req *chatRequest) oneCall() bool {
	return req.ParallelToolCalls != nil && !*req.ParallelToolCalls
}

// history turns the messages into a conversation in d's own format, as
// the model wrote and read it: calls written as d writes them, tool
// results as <tool_response> blocks in a user turn. System and developer
// messages become the caller's instructions, wherever they stand, since
// chat templates put the system prompt first. It also returns the last
// user request, which names the run.
func (req *chatRequest) history(d streamparser.Dialect) (*agent.Conversation, string, error) {
	conv := &agent.Conversation{Messages: []llm.Message{{Role: llm.RoleSystem}}} // the system prompt's place
	var system []string
	var results []string // tool messages waiting to become one user turn
	var asked string
	flush := func() {
		if len(results) > 0 {
			conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: agent.ToolResponses(results)})
			results = nil
		}
	}
	for i, m := range req.Messages {
		text, err := contentText(m.Content, fmt.Sprintf("messages[%d].content", i))
		if err != nil {
			return nil, "", err
		}
		if m.Role != "tool" {
			flush()
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			asked = text
			conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: text})
		case "assistant":
			reply, err := assistantText(text, m.ToolCalls, d, i)
			if err != nil {
				return nil, "", err
			}
			conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Content: reply})
		case "tool":
			results = append(results, text)
		default:
			return nil, "", badRequest(fmt.Sprintf("messages[%d].role", i), "role %q is not one of system, developer, user, assistant, tool", m.Role)
		}
	}
	flush()
	if last := conv.Messages[len(conv.Messages)-1]; last.Role != llm.RoleUser {
		return nil, "", badRequest("messages", "the last message must be from the user or a tool: toolscope writes the assistant's next reply")
	}
	conv.System = strings.Join(system, "\n\n")
	return conv, asked, nil
}

// contentText reads a message's content: a string, null, or text parts.
func contentText(raw json.RawMessage, param string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badRequest(param, "content must be a string or a list of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", badRequest(param, "content part %q is not available through toolscope: send text", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// assistantText writes an assistant message as the model wrote it: its
// text, then its calls in d.
func assistantText(text string, calls []chatToolCall, d streamparser.Dialect, i int) (string, error) {
	if len(calls) == 0 {
		return text, nil
	}
	drafts := make([]streamparser.Draft, len(calls))
	for j, c := range calls {
		args := c.Function.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}" // a call with no arguments
		}
		param := fmt.Sprintf("messages[%d].tool_calls[%d]", i, j)
		if err := tools.CheckName(c.Function.Name); err != nil && c.Function.Name != "" {
			return "", badRequest(param+".function.name", "%s: %v", param, err)
		}
		draft, err := streamparser.NewDraft(c.Function.Name, json.RawMessage(args))
		if err != nil || c.Function.Name == "" {
			return "", badRequest(param, "a tool call needs a function name and arguments that are a JSON object")
		}
		drafts[j] = draft
	}
	var b strings.Builder
	if text != "" {
		b.WriteString(text + "\n")
	}
	d.WriteCalls(&b, drafts)
	return b.String(), nil
}
