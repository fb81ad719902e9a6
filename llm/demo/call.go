package demo

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// The built-in tools the demo model knows how to use.
const (
	sendMail        = "send_mail"
	scheduleMeeting = "schedule_meeting"
	cancelMeeting   = "cancel_meeting"
)

// argOrder is the order in which a model trained on these signatures
// writes each built-in tool's arguments: the order of the schema.
var argOrder = map[string][]string{
	sendMail:        {"to", "subject", "body"},
	scheduleMeeting: {"title", "attendees", "date", "time"},
	cancelMeeting:   {"title", "date"},
}

// call is one tool call, written by the demo model or read from an
// earlier reply. Argument values are what encoding/json decodes into
// `any`, or []string.
type call struct {
	name string
	args map[string]any
}

// arg returns the argument as text, "" when it is missing or not a string.
func (c call) arg(name string) string {
	s, _ := c.args[name].(string)
	return s
}

// hermes writes the call as the JSON inside a <tool_call> block, the way
// Qwen models learnt it from Python's json.dumps: `{"name": …, "arguments":
// {…}}` with a space after every colon and comma. Text stays UTF-8.
func (c call) hermes() string {
	var b strings.Builder
	b.WriteString(`{"name": `)
	writeJSON(&b, c.name)
	b.WriteString(`, "arguments": `)
	writeObject(&b, c.args, argOrder[c.name])
	b.WriteString("}")
	return b.String()
}

// writeObject writes the keys listed in order first, then the rest sorted.
func writeObject(b *strings.Builder, obj map[string]any, order []string) {
	var keys []string
	for _, k := range order {
		if _, ok := obj[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range obj {
		if !slices.Contains(order, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	b.WriteString("{")
	for i, k := range append(keys, rest...) {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSON(b, k)
		b.WriteString(": ")
		writeJSON(b, obj[k])
	}
	b.WriteString("}")
}

func writeJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		writeObject(b, v, nil)
	case []string:
		writeArray(b, len(v), func(i int) any { return v[i] })
	case []any:
		writeArray(b, len(v), func(i int) any { return v[i] })
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) != nil {
			b.WriteString("null") // only values decoded from JSON reach here
			return
		}
		b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
}

func writeArray(b *strings.Builder, n int, elem func(int) any) {
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSON(b, elem(i))
	}
	b.WriteString("]")
}
