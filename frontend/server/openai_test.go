package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// chatPost sends a chat completion request and returns the status and body.
func (ts *testServer) chatPost(t *testing.T, body string, header ...string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

type chatResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
	Usage     *chatUsage `json:"usage"`
	Toolscope struct {
		RunID     string `json:"run_id"`
		Reason    string `json:"reason"`
		ToolCalls []struct {
			Name   string `json:"name"`
			Result string `json:"result"`
		} `json:"tool_calls"`
		InvalidCalls []struct{ Reason string } `json:"invalid_calls"`
	} `json:"toolscope"`
}

type chatUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type chatMessage struct {
	Role             string     `json:"role"`
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (ts *testServer) chat(t *testing.T, body string) chatResponse {
	t.Helper()
	status, b := ts.chatPost(t, body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, b)
	}
	var r chatResponse
	if err := json.Unmarshal(b, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("not a chat completion (%v): %s", err, b)
	}
	return r
}

// streamChat sends a streamed request and returns every data payload.
func (ts *testServer) streamChat(t *testing.T, body string) []string {
	t.Helper()
	status, b := ts.chatPost(t, body)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, b)
	}
	var frames []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("a line is not a data line: %q", line)
		}
		frames = append(frames, data)
	}
	if len(frames) == 0 || frames[len(frames)-1] != "[DONE]" {
		t.Fatalf("the stream does not end with data: [DONE]: %q", frames)
	}
	return frames[:len(frames)-1]
}

// accumulate builds the response a client assembles from the chunks.
func accumulate(t *testing.T, frames []string) chatResponse {
	t.Helper()
	var r chatResponse
	r.Choices = make([]struct {
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	}, 1)
	for i, f := range frames {
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					chatMessage
					ToolCalls []struct {
						Index int `json:"index"`
						toolCall
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage     *chatUsage      `json:"usage"`
			Toolscope json.RawMessage `json:"toolscope"`
		}
		if err := json.Unmarshal([]byte(f), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("frame %d is not a chunk (%v): %s", i, err, f)
		}
		if i == 0 && (len(c.Choices) != 1 || c.Choices[0].Delta.Role != "assistant") {
			t.Fatalf("the first chunk does not carry the role: %s", f)
		}
		r.ID = c.ID
		if c.Usage != nil {
			if len(c.Choices) != 0 {
				t.Fatalf("the usage chunk has choices: %s", f)
			}
			r.Usage = c.Usage
		}
		if c.Toolscope != nil {
			json.Unmarshal(c.Toolscope, &r.Toolscope)
		}
		for _, ch := range c.Choices {
			m := &r.Choices[0].Message
			m.Role += ch.Delta.Role
			m.Content += ch.Delta.Content
			m.ReasoningContent += ch.Delta.ReasoningContent
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index != len(m.ToolCalls) {
					t.Fatalf("tool call index %d, want %d", tc.Index, len(m.ToolCalls))
				}
				m.ToolCalls = append(m.ToolCalls, tc.toolCall)
			}
			if ch.FinishReason != nil {
				r.Choices[0].FinishReason = *ch.FinishReason
			}
		}
	}
	return r
}

const mailTool = `{"type": "function", "function": {"name": "send_mail", "description": "Send an email.",
	"parameters": {"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}}, "required": ["to", "subject", "body"]}}}`

const mailAsk = `{"role": "user", "content": "Email bob@example.com that I will be 10 minutes late to the standup"}`

func TestOpenAIClientToolsTwoSteps(t *testing.T) {
	ts := start(t, setup{})
	first := ts.chat(t, `{"model": "toolscope-demo", "messages": [`+mailAsk+`], "tools": [`+mailTool+`]}`)
	choice := first.Choices[0]
	if choice.FinishReason != "tool_calls" || len(choice.Message.ToolCalls) != 1 {
		t.Fatalf("want one tool call, got %+v", choice)
	}
	call := choice.Message.ToolCalls[0]
	var args map[string]any
	if !strings.HasPrefix(call.ID, "call_") || call.Type != "function" || call.Function.Name != "send_mail" ||
		json.Unmarshal([]byte(call.Function.Arguments), &args) != nil || args["to"] != "bob@example.com" {
		t.Fatalf("bad tool call: %+v", call)
	}
	if len(first.Toolscope.ToolCalls) != 0 {
		t.Fatalf("toolscope ran the client's tool: %+v", first.Toolscope.ToolCalls)
	}
	assistant, _ := json.Marshal(choice.Message)
	second := ts.chat(t, `{"model": "toolscope-demo", "tools": [`+mailTool+`], "messages": [`+mailAsk+`, `+string(assistant)+`,
		{"role": "tool", "tool_call_id": "`+call.ID+`", "content": "{\"sent\": true, \"id\": \"m-1\"}"}]}`)
	if c := second.Choices[0]; c.FinishReason != "stop" || c.Message.Content == "" || len(c.Message.ToolCalls) != 0 {
		t.Fatalf("want an answer after the tool result, got %+v", c)
	}
}

func TestOpenAIToolResultsReachThePromptInTheDialect(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "Sent."})
	ts.chat(t, `{"model": "qwen3:4b", "tools": [`+mailTool+`], "messages": [
		{"role": "system", "content": "You are Bob's assistant."}, `+mailAsk+`,
		{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "send_mail", "arguments": "{\"to\": \"bob@example.com\", \"subject\": \"Late\", \"body\": \"10 min\"}"}}]},
		{"role": "tool", "tool_call_id": "call_1", "content": "{\"sent\": true}"}]}`)
	prompt := ollama.Requests()[0].Prompt
	for _, want := range []string{
		"You are Bob's assistant.",
		`{"type": "function", "function": {"name":"send_mail"`,
		"<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"bob@example.com\", \"subject\": \"Late\", \"body\": \"10 min\"}}\n</tool_call>",
		"<tool_response>\n{\"sent\": true}\n</tool_response>",
	} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "schedule_meeting") {
		t.Errorf("the prompt offers toolscope's own tools beside the client's:\n%s", prompt)
	}
}

func TestOpenAIMalformedCallIsRetriedNotReturned(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": 7}}\n</tool_call>"},
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"bob@example.com\", \"subject\": \"Late\", \"body\": \"10 min\"}}\n</tool_call>"},
	)
	r := ts.chat(t, `{"model": "qwen3:4b", "tools": [`+mailTool+`], "messages": [`+mailAsk+`]}`)
	if c := r.Choices[0]; c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 || !strings.Contains(c.Message.ToolCalls[0].Function.Arguments, "bob@example.com") {
		t.Fatalf("want the retried, valid call only, got %+v", c)
	}
	if len(r.Toolscope.InvalidCalls) != 1 {
		t.Fatalf("the invalid call is not reported: %+v", r.Toolscope)
	}
	if retry := ollama.Requests()[1].Prompt; !strings.Contains(retry, "<tool_response>") || !strings.Contains(retry, `\"to\"`) {
		t.Fatalf("the retry does not tell the model what was wrong:\n%s", retry)
	}

	// Past the retries, the text comes back as an answer, with no call.
	bad := ollamatest.Reply{Text: "Sure. <tool_call>\n{\"name\": \"send_mail\", \"arguments\": {}}\n</tool_call>"}
	ollama.Reply(bad, bad, bad)
	r = ts.chat(t, `{"model": "qwen3:4b", "tools": [`+mailTool+`], "messages": [`+mailAsk+`]}`)
	if c := r.Choices[0]; c.FinishReason != "length" || len(c.Message.ToolCalls) != 0 || !strings.HasPrefix(c.Message.Content, "Sure.") || len(r.Toolscope.InvalidCalls) != 3 {
		t.Fatalf("want the text after three malformed replies, got %+v %+v", c, r.Toolscope)
	}
}

func TestOpenAIStreamAccumulatesToTheResponse(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"client tools", `"tools": [` + mailTool + `], "messages": [` + mailAsk + `]`},
		{"own tools", `"messages": [` + mailAsk + `]`},
		{"tool_choice none", `"tools": [` + mailTool + `], "tool_choice": "none", "messages": [` + mailAsk + `]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := start(t, setup{config: func(cfg *server.Config) { cfg.APIStubs = true }})
			whole := ts.chat(t, `{"model": "toolscope-demo", `+c.body+`}`)
			streamed := accumulate(t, ts.streamChat(t, `{"model": "toolscope-demo", "stream": true, "stream_options": {"include_usage": true}, `+c.body+`}`))
			if streamed.Usage == nil || streamed.Usage.TotalTokens == 0 {
				t.Fatalf("no usage chunk: %+v", streamed.Usage)
			}
			// Run and call ids differ between the two runs; the rest may not.
			for _, r := range []*chatResponse{&whole, &streamed} {
				r.ID, r.Toolscope.RunID = "", ""
				for i := range r.Choices[0].Message.ToolCalls {
					r.Choices[0].Message.ToolCalls[i].ID = ""
				}
			}
			if !reflect.DeepEqual(whole.Choices, streamed.Choices) || !reflect.DeepEqual(whole.Toolscope, streamed.Toolscope) {
				t.Fatalf("the stream adds up to\n%+v\nnot\n%+v", streamed, whole)
			}
		})
	}
}

func TestOpenAIOwnToolsRunInsideTheRequest(t *testing.T) {
	ts := start(t, setup{config: func(cfg *server.Config) { cfg.APIStubs = true }})
	r := ts.chat(t, `{"model": "toolscope-demo", "messages": [`+mailAsk+`]}`)
	if c := r.Choices[0]; c.FinishReason != "stop" || c.Message.Content == "" || len(c.Message.ToolCalls) != 0 {
		t.Fatalf("want a final answer, got %+v", c)
	}
	if len(r.Toolscope.ToolCalls) != 1 || r.Toolscope.ToolCalls[0].Name != "send_mail" || r.Toolscope.ToolCalls[0].Result == "" {
		t.Fatalf("the extension does not say send_mail ran: %+v", r.Toolscope)
	}

	noStubs := start(t, setup{})
	r = noStubs.chat(t, `{"model": "toolscope-demo", "messages": [`+mailAsk+`]}`)
	if len(r.Toolscope.ToolCalls) != 0 {
		t.Fatalf("stubs ran without APIStubs: %+v", r.Toolscope)
	}
}

func TestOpenAIToolChoiceNoneOffersNoTools(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "I can't send mail."})
	r := ts.chat(t, `{"model": "qwen3:4b", "tool_choice": "none", "tools": [`+mailTool+`], "messages": [`+mailAsk+`]}`)
	if r.Choices[0].FinishReason != "stop" || r.Choices[0].Message.Content != "I can't send mail." {
		t.Fatalf("got %+v", r.Choices[0])
	}
	if p := ollama.Requests()[0].Prompt; strings.Contains(p, "<tools>") {
		t.Fatalf("tool_choice none still offers tools:\n%s", p)
	}
}

func TestOpenAIRequiredChoiceIsSaidInThePrompt(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "No."})
	r := ts.chat(t, `{"model": "qwen3:4b", "tool_choice": {"type": "function", "function": {"name": "send_mail"}}, "parallel_tool_calls": false,
		"tools": [`+mailTool+`, {"type": "function", "function": {"name": "other"}}], "messages": [`+mailAsk+`]}`)
	if r.Choices[0].FinishReason != "stop" || r.Choices[0].Message.Content != "No." {
		t.Fatalf("an answer without the required call is returned as it is; got %+v", r.Choices[0])
	}
	p := ollama.Requests()[0].Prompt
	if !strings.Contains(p, "Answer with a call to the function send_mail.") || !strings.Contains(p, "at most one function") || strings.Contains(p, `"other"`) {
		t.Fatalf("the prompt does not require send_mail alone:\n%s", p)
	}
}

func TestOpenAIErrors(t *testing.T) {
	ts := start(t, setup{})
	for _, c := range []struct {
		name, body string
		status     int
		param      string
		message    string // a part of the error's message, if the case names one
	}{
		{"unknown model", `{"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}`, 404, "model", ""},
		{"malformed", `{"model": "toolscope-demo", "messages": [`, 400, "", "its JSON ends before it is complete"},
		{"empty", ``, 400, "", "the body is empty"},
		{"wrong type", `{"model": "toolscope-demo", "messages": "hi"}`, 400, "", `"messages" must be a list, not a string`},
		{"n", `{"model": "toolscope-demo", "n": 2, "messages": [{"role": "user", "content": "hi"}]}`, 400, "n", ""},
		{"logprobs", `{"model": "toolscope-demo", "logprobs": true, "messages": [{"role": "user", "content": "hi"}]}`, 400, "logprobs", ""},
		{"image", `{"model": "toolscope-demo", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}`, 400, "messages[0].content", ""},
		{"no model", `{"messages": [{"role": "user", "content": "hi"}]}`, 400, "model", ""},
		{"ends with assistant", `{"model": "toolscope-demo", "messages": [{"role": "assistant", "content": "hi"}]}`, 400, "messages", ""},
		{"unknown tool_choice", `{"model": "toolscope-demo", "tool_choice": {"type": "function", "function": {"name": "x"}}, "messages": [{"role": "user", "content": "hi"}]}`, 400, "tool_choice", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b := ts.chatPost(t, c.body)
			var e struct {
				Error struct {
					Message, Type string
					Param         *string
					Code          *string
				}
			}
			if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
				t.Fatalf("not OpenAI's error shape: %s", b)
			}
			if status != c.status || (c.param != "" && (e.Error.Param == nil || *e.Error.Param != c.param)) {
				t.Fatalf("status %d param %v, want %d %q: %s", status, e.Error.Param, c.status, c.param, b)
			}
			if !strings.Contains(e.Error.Message, c.message) {
				t.Fatalf("the error says %q, want it to say %q", e.Error.Message, c.message)
			}
		})
	}
}

func TestOpenAIUnknownFieldsAreIgnored(t *testing.T) {
	ts := start(t, setup{})
	ts.chat(t, `{"model": "toolscope-demo", "user": "u-1", "metadata": {"a": "b"}, "temperature": 0.2, "top_p": 0.9, "seed": 1, "stop": ["\n\n"],
		"max_completion_tokens": 100, "messages": [{"role": "developer", "content": [{"type": "text", "text": "Be brief."}]}, {"role": "user", "content": "hi"}]}`)
}

func TestOpenAIModelsList(t *testing.T) {
	ts := start(t, setup{})
	_, v := ts.get(t, "/v1/models")
	data, _ := v["data"].([]any)
	if v["object"] != "list" || len(data) != 1 || data[0].(map[string]any)["id"] != "toolscope-demo" || data[0].(map[string]any)["object"] != "model" {
		t.Fatalf("not OpenAI's model list: %v", v)
	}
}

func TestAPIRunsAreListedWithTheirSource(t *testing.T) {
	ts := start(t, setup{})
	status, _ := ts.chatPost(t, `{"model": "toolscope-demo", "messages": [{"role": "user", "content": "hi there"}]}`, "User-Agent", "my-agent/1.0")
	if status != 200 {
		t.Fatal(status)
	}
	run, _ := ts.startRun(t, `{"message": "from the page"}`)
	ts.events(t, run, 0)
	_, v := ts.get(t, "/api/runs")
	list, _ := v["runs"].([]any)
	if len(list) != 2 {
		t.Fatalf("want two runs, got %v", v)
	}
	newest, oldest := list[0].(map[string]any), list[1].(map[string]any)
	if newest["source"] != "page" || oldest["source"] != "api" || oldest["user_agent"] != "my-agent/1.0" ||
		oldest["message"] != "hi there" || oldest["status"] != "answered" || oldest["started_at"] == nil {
		t.Fatalf("bad run list: %v", list)
	}
}

// Fiber's header strings point into a buffer the next request on the
// connection reuses: a run keeps its client's User-Agent only if it copies it.
func TestARunKeepsItsUserAgentAfterTheNextRequest(t *testing.T) {
	ts := start(t, setup{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model": "toolscope-demo", "messages": [{"role": "user", "content": "hi"}]}`
	r := bufio.NewReader(conn)
	for _, req := range []string{
		"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: first-client/1.0\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body,
		"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: XXXXXXXXXXXXXXXX\r\n\r\n",
	} {
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	_, v := ts.get(t, "/api/runs")
	list, _ := v["runs"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["user_agent"] != "first-client/1.0" {
		t.Fatalf("the run's user agent changed with the next request: %v", list)
	}
}

func TestOpenAIAcceptsTheOperatorTokenAsAPIKey(t *testing.T) {
	ts := start(t, setup{config: func(cfg *server.Config) {
		cfg.Access.Tokens = server.Tokens{Operator: "op-token", Viewer: "view-token"}
	}})
	body := `{"model": "toolscope-demo", "messages": [{"role": "user", "content": "hi"}]}`
	if status, b := ts.chatPost(t, body, "Authorization", "Bearer op-token"); status != 200 {
		t.Fatalf("the operator token was refused: %d %s", status, b)
	}
	status, b := ts.chatPost(t, body, "Authorization", "Bearer wrong")
	var e struct{ Error struct{ Type string } }
	if json.Unmarshal(b, &e); status != 401 || e.Error.Type != "authentication_error" {
		t.Fatalf("a wrong key: %d %s", status, b)
	}
	if status, _ := ts.chatPost(t, body, "Authorization", "Bearer view-token"); status != 403 {
		t.Fatalf("the viewer token started a run: %d", status)
	}
}
