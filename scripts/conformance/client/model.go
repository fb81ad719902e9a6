package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// modelID is the one model the scripted server serves.
const modelID = "conformance-script"

// toolCall is a call the script makes, and the form of the suite's
// toolCalls context.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// offered is a tool as toolscope described it to the model.
type offered struct {
	name   string
	params json.RawMessage
}

// newModel is an OpenAI-compatible server (/v1/models and a streamed
// /v1/chat/completions, as toolscope's --backend openai --mode chat asks
// them) whose model follows a script: its first reply makes the calls
// the scenario expects, in toolscope's default dialect (hermes), and any
// later one, which follows the tool responses, answers "Done.". It reads
// the tools from the system prompt toolscope wrote, as a model would, so
// a call can only name a tool toolscope offered, with arguments built
// from the schema toolscope passed on.
func newModel(scenario string, sc scenarioContext) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": modelID, "object": "model", "owned_by": "toolscope"}}})
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "the request is not a chat completion request: "+err.Error(), http.StatusBadRequest)
			return
		}
		var system string
		answered := false
		for _, m := range req.Messages {
			switch m.Role {
			case "system":
				system += m.Content
			case "assistant":
				answered = true
			}
		}
		text := "Done."
		if !answered {
			if calls := plan(scenario, sc, readTools(system)); len(calls) > 0 {
				text = hermes(calls)
			}
		}
		stream(w, text)
	})
	return mux
}

// plan is the calls a scenario expects of a client, as the Go SDK's
// conformance client (conformance/everything-client) makes them. A
// scenario not named here asks only for the connection and tools/list,
// which toolscope makes before the model is asked anything.
func plan(scenario string, sc scenarioContext, tools []offered) []toolCall {
	none := map[string]any{}
	switch {
	case scenario == "tools_call":
		return []toolCall{{"add_numbers", map[string]any{"a": 5, "b": 3}}}
	case scenario == "elicitation-sep1034-client-defaults":
		return []toolCall{{"test_client_elicitation_defaults", none}}
	case scenario == "sse-retry":
		return []toolCall{{"test_reconnection", none}}
	case scenario == "json-schema-2020-12-preservation":
		// The schema echoed back is the one the model read: what
		// survived toolscope's handling of tools/list.
		for _, t := range tools {
			if t.name == "json_schema_2020_12_tool" {
				return []toolCall{{"json_schema_echo", map[string]any{"schema": t.params}}}
			}
		}
		return nil
	case scenario == "sep-2322-client-request-state":
		var calls []toolCall
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"} {
			calls = append(calls, toolCall{name, none})
		}
		return calls
	case scenario == "http-standard-headers":
		return callEach(tools, none)
	case scenario == "http-invalid-tool-headers":
		// Only the tools toolscope kept are offered; each is called, so
		// that one it should have left out would show.
		return callEach(tools, map[string]any{"region": "us-west1"})
	case scenario == "http-custom-headers":
		return sc.ToolCalls
	case strings.HasPrefix(scenario, "auth/"):
		return []toolCall{{"test-tool", none}}
	}
	return nil
}

// callEach calls every offered tool with args. toolscope's own stub tools
// are among them; it refuses those calls, whose arguments do not fit, and
// they never reach the server.
func callEach(tools []offered, args map[string]any) []toolCall {
	var calls []toolCall
	for _, t := range tools {
		calls = append(calls, toolCall{t.name, args})
	}
	return calls
}

var toolsBlock = regexp.MustCompile(`(?s)<tools>\n(.*?)\n?</tools>`)

// readTools reads the tools block of toolscope's system prompt: one
// {"type": "function", "function": {…}} object a line.
func readTools(system string) []offered {
	m := toolsBlock.FindStringSubmatch(system)
	if m == nil {
		return nil
	}
	var tools []offered
	for _, line := range strings.Split(m[1], "\n") {
		var sig struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal([]byte(line), &sig) == nil && sig.Function.Name != "" {
			tools = append(tools, offered{sig.Function.Name, sig.Function.Parameters})
		}
	}
	return tools
}

// hermes writes calls as Hermes and Qwen models do.
func hermes(calls []toolCall) string {
	var b strings.Builder
	for _, c := range calls {
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		call, err := json.Marshal(map[string]any{"name": c.Name, "arguments": args})
		if err != nil {
			panic(err) // the arguments came from JSON
		}
		fmt.Fprintf(&b, "<tool_call>\n%s\n</tool_call>\n", call)
	}
	return b.String()
}

// stream sends text as one streamed chat completion: the text, the
// finish reason, the usage, then [DONE], as vLLM does.
func stream(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, usage any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-conformance", "object": "chat.completion.chunk", "created": 0, "model": modelID, "choices": choices, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": text}, "finish_reason": nil}}, nil)
	chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}, nil)
	chunk([]any{}, map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
