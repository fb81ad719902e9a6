package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

const preamble = "You are a helpful assistant with access to tools. Use a tool when it helps to answer; otherwise answer directly."

// The tools block is the text the Qwen3 and Hermes model families were
// trained on, word for word: small models call tools far more reliably
// when the prompt matches their training. Other dialects keep the block
// and change only the instructions for writing a call.
const toolsHeader = `# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>`

// callFormats tells the model how to write a call, per dialect.
var callFormats = map[streamparser.Dialect]string{
	streamparser.Hermes: `For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>`,
	streamparser.Marker: `For each function call, write >>>CALL_FUNCTION<<< followed by a json object with function name and arguments:
>>>CALL_FUNCTION<<< {"name": <function-name>, "arguments": <args-json-object>}`,
	streamparser.Pythonic: `For each function call, write <<function>> followed by a Python function call with keyword arguments:
<<function>>function_name(argument_name="value", other_argument=2)`,
	streamparser.Llama3: `For each function call, write <|python_tag|> followed by a json object with function name and parameters:
<|python_tag|>{"name": <function-name>, "parameters": <args-json-object>}`,
	streamparser.Mistral: `To call functions, write [TOOL_CALLS] followed by a json array with one object per call:
[TOOL_CALLS] [{"name": <function-name>, "arguments": <args-json-object>}]`,
	streamparser.Fenced: "For each function call, write a json code block holding an object with function name and arguments:\n```json\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n```",
}

// SystemPrompt describes ts to the model, tells it how to write a call in
// dialect d, and gives the date, time and time zone of now, so that
// "tomorrow" or "on Friday" can be resolved.
func SystemPrompt(ts []tools.Tool, d streamparser.Dialect, now time.Time) string {
	var b strings.Builder
	b.WriteString(preamble)
	zone, _ := now.Zone()
	fmt.Fprintf(&b, "\nToday is %s, %s. The time is %s in time zone %s (UTC%s).",
		now.Weekday(), now.Format(time.DateOnly), now.Format("15:04"), zone, now.Format("-07:00"))
	if len(ts) == 0 {
		return b.String()
	}
	b.WriteString("\n\n" + toolsHeader)
	for _, t := range ts {
		b.WriteString("\n" + toolLine(t))
	}
	b.WriteString("\n</tools>\n\n" + callFormats[d])
	return b.String()
}

// toolLine renders one tool as Ollama renders it into templates.
func toolLine(t tools.Tool) string {
	fn, err := tools.JSON(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{t.Name(), t.Description(), t.Parameters()})
	if err != nil {
		// The registry compiled the schema, so it is valid JSON.
		panic(fmt.Sprintf("tool %s: %v", t.Name(), err))
	}
	return `{"type": "function", "function": ` + fn + `}`
}
