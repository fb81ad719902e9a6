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
// and change only the instructions for writing a call, which each dialect
// carries (streamparser.Dialect.Instructions).
const toolsHeader = `# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>`

// SystemPrompt describes ts to the model, tells it how to write a call in
// dialect d, and gives the date, time and time zone of now, so that
// "tomorrow" or "on Friday" can be resolved.
func SystemPrompt(ts []tools.Tool, d streamparser.Dialect, now time.Time) string {
	return systemPrompt("", ts, d, now)
}

// systemPrompt is SystemPrompt opening with the caller's own instructions,
// when there are any, in place of toolscope's preamble.
func systemPrompt(own string, ts []tools.Tool, d streamparser.Dialect, now time.Time) string {
	var b strings.Builder
	if own == "" {
		own = preamble
	}
	b.WriteString(own)
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
	b.WriteString("\n</tools>\n\n" + d.Instructions())
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
