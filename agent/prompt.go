package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/tools"
)

const preamble = "You are a helpful assistant with access to tools. Use a tool when it helps to answer; otherwise answer directly."

// The tools block is the text the Qwen3 and Hermes model families were
// trained on, word for word: small models call tools far more reliably
// when the prompt matches their training.
const (
	toolsHeader = `# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>`
	toolsFooter = `</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>`
)

// SystemPrompt describes ts to the model and tells it the date, time and
// time zone of now, so that "tomorrow" or "on Friday" can be resolved.
func SystemPrompt(ts []tools.Tool, now time.Time) string {
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
	b.WriteString("\n" + toolsFooter)
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
