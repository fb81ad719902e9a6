package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
)

// calculatorSpec serves toolscope's calculator MCP server over
// streamable HTTP for the test.
func calculatorSpec(t *testing.T) mcp.ServerSpec {
	handler, err := mcpserver.Handler(mcpserver.Calculator(), mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	calc := httptest.NewServer(handler)
	t.Cleanup(calc.Close)
	return mcp.ServerSpec{Name: "calculator", URL: calc.URL + "/mcp", Transport: mcp.TransportHTTP}
}

// clientStep is what testdata/openai_client.mjs saw of one completion.
type clientStep struct {
	Message struct {
		Role      string
		Content   string
		ToolCalls []toolCall `json:"tool_calls"`
	}
	Finish    string
	Usage     *chatUsage
	Toolscope *struct {
		RunID     string                          `json:"run_id"`
		ToolCalls []struct{ Name, Result string } `json:"tool_calls"`
	}
}

type clientError struct {
	Status            int
	Type, Param, Code string
	Message           string
}

type clientReport struct {
	Models              []string
	OwnTools            []clientStep `json:"own_tools"`
	ClientTools         []clientStep `json:"client_tools"`
	ClientToolsStreamed []clientStep `json:"client_tools_streamed"`
	ToolChoiceNone      clientStep   `json:"tool_choice_none"`
	UnknownModel        clientError  `json:"unknown_model"`
	N2                  clientError
	Malformed           clientError
	// With LIMITS set: an agent-sized request, and one over the limit.
	AgentSizedBytes int         `json:"agent_sized_bytes"`
	AgentSized      clientStep  `json:"agent_sized"`
	TooLarge        clientError `json:"too_large"`
}

// runOpenAIClient runs the official openai npm client against ts. It
// skips where node or the client is missing, but not in CI, where test.sh
// installs both.
func runOpenAIClient(t *testing.T, ts *testServer, model string, env ...string) clientReport {
	t.Helper()
	root, _ := filepath.Abs("../..")
	_, noClient := os.Stat(filepath.Join(root, "node_modules", "openai", "package.json"))
	if _, err := exec.LookPath("node"); err != nil || noClient != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node and the openai npm client are needed: run ./test.sh, which installs them")
		}
		t.Skip("node or node_modules/openai is missing: ./test.sh installs them")
	}
	cmd := exec.CommandContext(t.Context(), "node", "testdata/openai_client.mjs")
	cmd.Env = append(os.Environ(), append(env, "OPENAI_BASE_URL="+ts.url+"/v1", "MODEL="+model)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openai_client.mjs: %v\n%s", err, stderr.String())
	}
	var r clientReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("openai_client.mjs printed %s: %v", out, err)
	}
	return r
}

// checkClientLoop checks a two-step client-side loop: a send_mail call,
// then an answer once its result came back.
func checkClientLoop(t *testing.T, name string, steps []clientStep) {
	t.Helper()
	if len(steps) != 2 || steps[0].Finish != "tool_calls" || len(steps[0].Message.ToolCalls) != 1 {
		t.Fatalf("%s: want a tool call then an answer, got %+v", name, steps)
	}
	call := steps[0].Message.ToolCalls[0]
	var args map[string]any
	if !strings.HasPrefix(call.ID, "call_") || call.Function.Name != "send_mail" || json.Unmarshal([]byte(call.Function.Arguments), &args) != nil || args["to"] != "bob@example.com" {
		t.Fatalf("%s: bad call %+v", name, call)
	}
	if steps[1].Finish != "stop" || steps[1].Message.Content == "" {
		t.Fatalf("%s: no answer after the tool result: %+v", name, steps[1])
	}
}

func checkClientErrors(t *testing.T, r clientReport) {
	t.Helper()
	if r.UnknownModel.Status != 404 || r.UnknownModel.Param != "model" {
		t.Errorf("unknown model: %+v", r.UnknownModel)
	}
	if r.N2.Status != 400 || r.N2.Param != "n" || r.N2.Type != "invalid_request_error" {
		t.Errorf("n: 2: %+v", r.N2)
	}
	if r.Malformed.Status != 400 || r.Malformed.Type != "invalid_request_error" {
		t.Errorf("malformed body: %+v", r.Malformed)
	}
}

func TestOpenAINodeClientAgainstTheDemo(t *testing.T) {
	ts := start(t, setup{
		settings: engine.Settings{MCP: []mcp.ServerSpec{calculatorSpec(t)}},
		config:   func(cfg *server.Config) { cfg.APIStubs = true },
	})
	r := runOpenAIClient(t, ts, "toolscope-demo", "OWN_ASKS=What is 1.5 plus 2.25?|Email bob@example.com that I will be late", "LIMITS=1")
	if len(r.Models) != 1 || r.Models[0] != "toolscope-demo" {
		t.Errorf("models: %v", r.Models)
	}
	for i, want := range []string{"add", "send_mail"} { // an MCP server's tool, then a stub
		own := r.OwnTools[i]
		if own.Finish != "stop" || own.Message.Content == "" || len(own.Toolscope.ToolCalls) != 1 || own.Toolscope.ToolCalls[0].Name != want {
			t.Errorf("toolscope's own tools: want %s to run, got %+v %+v", want, own, own.Toolscope)
		}
	}
	checkClientLoop(t, "non-streamed", r.ClientTools)
	checkClientLoop(t, "streamed", r.ClientToolsStreamed)
	if n := r.ToolChoiceNone; n.Finish != "stop" || len(n.Message.ToolCalls) != 0 || n.Usage == nil || n.Usage.TotalTokens == 0 {
		t.Errorf("tool_choice none: %+v", n)
	}
	checkClientErrors(t, r)
	if a := r.AgentSized; r.AgentSizedBytes < 1<<20 || a.Finish != "tool_calls" || len(a.Message.ToolCalls) != 1 || a.Message.ToolCalls[0].Function.Name != "send_mail" {
		t.Errorf("an agent-sized request of %d bytes: want a send_mail call, got %+v", r.AgentSizedBytes, a)
	}
	if e := r.TooLarge; e.Status != 413 || e.Type != "invalid_request_error" || e.Code != "request_too_large" || !strings.Contains(e.Message, "--v1-body-limit") {
		t.Errorf("a request over 8 MiB: %+v", e)
	}
}

func TestOpenAINodeClientAgainstOllama(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	call := ollamatest.Reply{Text: "<think>\nBob needs an email.\n</think>\n\n<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"bob@example.com\", \"subject\": \"Late\", \"body\": \"10 minutes late\"}}\n</tool_call>"}
	ollama.Reply(
		ollamatest.Reply{Text: "Hello from Ollama."},
		call, ollamatest.Reply{Text: "Sent to bob@example.com."},
		call, ollamatest.Reply{Text: "Sent to bob@example.com."},
		ollamatest.Reply{Text: "I would email Bob."},
	)
	r := runOpenAIClient(t, ts, "qwen3:4b")
	if own := r.OwnTools[0]; own.Message.Content != "Hello from Ollama." || own.Finish != "stop" {
		t.Errorf("plain completion: %+v", own)
	}
	checkClientLoop(t, "non-streamed", r.ClientTools)
	checkClientLoop(t, "streamed", r.ClientToolsStreamed)
	if n := r.ToolChoiceNone; n.Message.Content != "I would email Bob." || n.Finish != "stop" {
		t.Errorf("tool_choice none: %+v", n)
	}
	checkClientErrors(t, r)
	if p := ollama.Requests()[2].Prompt; !strings.Contains(p, "<tool_response>\n{\"sent\":true,\"to\":\"bob@example.com\"}\n</tool_response>") {
		t.Errorf("the client's tool result is not in the prompt:\n%s", p)
	}
}
