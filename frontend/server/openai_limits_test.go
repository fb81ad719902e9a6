package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// agentRequest is a chat completion request the size a coding agent
// sends: a long system prompt, 20 tools, and a history in which a tool
// read a file of about fileBytes, before the user asks to email Bob.
func agentRequest(t *testing.T, fileBytes int) string {
	t.Helper()
	var mail map[string]any
	if err := json.Unmarshal([]byte(mailTool), &mail); err != nil {
		t.Fatal(err)
	}
	tools := []any{mail}
	for i := range 19 {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": fmt.Sprintf("workspace_tool_%d", i), "description": strings.Repeat("Does one thing in the workspace. ", 20),
			"parameters": map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{
				"path":    map[string]any{"type": "string", "description": "a file in the workspace"},
				"options": map[string]any{"type": "object", "properties": map[string]any{"recursive": map[string]any{"type": "boolean"}, "depth": map[string]any{"type": "integer", "minimum": 0}}},
			}},
		}})
	}
	file := strings.Repeat("func handler(w http.ResponseWriter, r *http.Request) { /* … */ }\n", fileBytes/64)
	body, err := json.Marshal(map[string]any{
		"model": "toolscope-demo",
		"tools": tools,
		"messages": []any{
			map[string]any{"role": "system", "content": strings.Repeat("You are a careful assistant working in the user's repository. ", 2000)},
			map[string]any{"role": "user", "content": "Read server.go"},
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "workspace_tool_0", "arguments": `{"path": "server.go"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": file},
			map[string]any{"role": "assistant", "content": "server.go holds the HTTP handlers."},
			json.RawMessage(mailAsk),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// openAIErrorBody is OpenAI's error shape.
type openAIErrorBody struct {
	Error struct {
		Message, Type string
		Param, Code   *string
	}
}

func decodeOpenAIError(t *testing.T, b []byte) openAIErrorBody {
	t.Helper()
	var e openAIErrorBody
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("not OpenAI's error shape: %.300s", b)
	}
	return e
}

func TestOpenAITakesAnAgentSizedRequest(t *testing.T) {
	ts := start(t, setup{})
	body := agentRequest(t, 900<<10)
	if len(body) < 1<<20 {
		t.Fatalf("the request is %d bytes, want about 1 MiB", len(body))
	}
	got := ts.chat(t, body)
	c := got.Choices[0]
	if c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Name != "send_mail" {
		t.Fatalf("want a send_mail call after the long history, got %+v", c)
	}
}

func TestOpenAIBodyOverTheLimitSaysHowToRaiseIt(t *testing.T) {
	ts := start(t, setup{config: func(cfg *server.Config) { cfg.V1BodyLimit = 1 << 20 }})
	status, b := ts.chatPost(t, agentRequest(t, 1<<20))
	e := decodeOpenAIError(t, b)
	if status != http.StatusRequestEntityTooLarge || e.Error.Type != "invalid_request_error" || e.Error.Code == nil || *e.Error.Code != "request_too_large" ||
		!strings.Contains(e.Error.Message, "at most 1 MiB") || !strings.Contains(e.Error.Message, "--v1-body-limit") {
		t.Fatalf("status %d: %s", status, b)
	}
	// The other endpoints keep their own, smaller limit.
	status, page := ts.post(t, "/api/runs", `{"message": "`+strings.Repeat("a", server.DefaultBodyLimit)+`"}`)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(fmt.Sprint(page["error"]), "at most 64 KiB") {
		t.Fatalf("/api/runs over 64 KiB: %d %v", status, page)
	}
}

// nestedParameters is send_mail's parameters with one more, optional,
// that nests levels objects deep: 2×levels+3 levels of JSON in all.
func nestedParameters(levels int) string {
	options := strings.Repeat(`{"type": "object", "properties": {"a": `, levels) + `{"type": "string"}` + strings.Repeat(`}}`, levels)
	return `{"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}, "options": ` + options + `}}`
}

// toolsRequest asks to email Bob, offering tools, each a JSON object.
func toolsRequest(tools ...string) string {
	return `{"model": "toolscope-demo", "messages": [` + mailAsk + `], "tools": [` + strings.Join(tools, ", ") + `]}`
}

func mailToolWith(name, parameters string) string {
	return `{"type": "function", "function": {"name": "` + name + `", "description": "Send an email.", "parameters": ` + parameters + `}}`
}

func TestOpenAIRefusesToolsOutOfBounds(t *testing.T) {
	ts := start(t, setup{})
	many := make([]string, 129)
	for i := range many {
		many[i] = mailToolWith(fmt.Sprintf("tool_%d", i), `{"type": "object"}`)
	}
	wide := make([]string, 10)
	for i := range wide {
		wide[i] = mailToolWith(fmt.Sprintf("tool_%d", i), `{"type": "object", "description": "`+strings.Repeat("a", 60<<10)+`"}`)
	}
	for _, c := range []struct {
		name, body, param, says string
	}{
		{"1,000 levels deep", toolsRequest(mailTool, mailToolWith("deep", nestedParameters(1000))), "tools[1].function.parameters", "tools[1] (deep): the parameters schema nests more than 64 levels deep"},
		{"markup in a name", toolsRequest(mailToolWith(`x<svg/onload=alert(1)>`, `{"type": "object"}`)), "tools[0].function.name", `tools[0]: tool name "x<svg/onload=alert(1)>" has '<' in it`},
		{"markup in a past call", `{"model": "toolscope-demo", "messages": [` + mailAsk + `, {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "a b", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c", "content": "ok"}]}`,
			"messages[1].tool_calls[0].function.name", `tool name "a b" has ' ' in it`},
		{"129 tools", toolsRequest(many...), "tools", "129 tools were sent: at most 128"},
		{"600 KiB of schemas", toolsRequest(wide...), "tools", "at most 512 KiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b := ts.chatPost(t, c.body)
			e := decodeOpenAIError(t, b)
			if status != http.StatusBadRequest || e.Error.Type != "invalid_request_error" || e.Error.Param == nil || *e.Error.Param != c.param || !strings.Contains(e.Error.Message, c.says) {
				t.Fatalf("status %d: %s\nwant 400, param %s, saying %q", status, b, c.param, c.says)
			}
		})
	}
}

func TestOpenAITakesANestedSchemaWithinBounds(t *testing.T) {
	ts := start(t, setup{})
	got := ts.chat(t, toolsRequest(mailToolWith("send_mail", nestedParameters(30))))
	if c := got.Choices[0]; c.FinishReason != "tool_calls" || c.Message.ToolCalls[0].Function.Name != "send_mail" {
		t.Fatalf("want a send_mail call, got %+v", c)
	}
}

// A client's tools are compiled only for a run the caps admit: with every
// place taken, a request whose schema would not compile is told to wait,
// not that its schema is wrong, since nothing was compiled for it.
func TestOpenAIToolsAreCompiledOnlyOnceTheRunIsAdmitted(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}, config: func(c *server.Config) {
		c.Hub = runs.NewHub(10, runs.Limits{MaxLive: 1})
	}})
	ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	unknownType := toolsRequest(mailToolWith("send_mail", `{"type": "object", "properties": {"to": {"type": "text"}}}`))
	if status, b := ts.chatPost(t, unknownType); status != http.StatusTooManyRequests {
		t.Fatalf("with every place taken: %d %s, want 429", status, b)
	}
	g.Release()
	for ts.hub.Live() > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	status, b := ts.chatPost(t, unknownType)
	if e := decodeOpenAIError(t, b); status != http.StatusBadRequest || !strings.Contains(e.Error.Message, `tool "send_mail": invalid parameters schema`) {
		t.Fatalf("once admitted: %d %s, want 400 naming the schema's problem", status, b)
	}
	if n := ts.hub.Live(); n != 0 {
		t.Fatalf("%d runs live after a run that could not start, want 0", n)
	}
}

// /v1's larger body is for requests with the operator's token, when the
// server asks for one: any other is refused all the same, so its body is
// not read into memory first. One announced over the other endpoints'
// limit is answered, saying what it lacks, before its body is sent; with
// the token, an agent's request is served.
func TestOpenAIReadsNoBodyItWouldRefuse(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) {
		c.Access = server.Access{Tokens: tokens}
		c.ReadTimeout = 5 * time.Minute // a body waited for is not refused soon
	}})
	addr := strings.TrimPrefix(ts.url, "http://")
	for _, tt := range []struct {
		who, auth string
		status    int
		says      string
	}{
		{"a stranger", "", http.StatusUnauthorized, "a valid token is needed"},
		{"a viewer", "Authorization: Bearer " + tokens.Viewer + "\r\n", http.StatusForbidden, "the viewer link can only watch runs"},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, tt.auth, 1<<20)
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s's 1 MiB body: no answer before it was sent: %v", tt.who, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if e := decodeOpenAIError(t, b); resp.StatusCode != tt.status || !strings.Contains(e.Error.Message, tt.says) {
			t.Errorf("%s's 1 MiB body: %s %s; want %d saying %q", tt.who, resp.Status, b, tt.status, tt.says)
		}
	}

	headers := bearer(tokens.Operator)
	headers["Content-Type"] = "application/json"
	if resp, body := ts.call(t, "POST", "/v1/chat/completions", agentRequest(t, 900<<10), headers); resp.StatusCode != http.StatusOK {
		t.Errorf("an agent's 1 MiB request with the operator's token: %s %.300s", resp.Status, body)
	}
}
