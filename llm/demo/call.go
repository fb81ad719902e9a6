package demo

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// call is one tool call, written by the demo model or read from an
// earlier reply. name is the tool as offered; args are keyed by the
// parameter names the model learnt for it (see conversation.written and
// conversation.learnt), and their values are what encoding/json decodes
// into `any` with UseNumber, or []string. Numbers are json.Number, so
// that 26.2 stays 26.2, as the person wrote it.
type call struct {
	name string
	args map[string]any
}

// arg returns the argument as text, "" when it is missing or not a string.
func (c call) arg(name string) string {
	s, _ := c.args[name].(string)
	return s
}

// argument is one argument as it is written in a call.
type argument struct {
	name  string
	value any
}

// writeValue writes v as JSON, maps with their keys sorted, as
// encoding/json would but with a space after each colon and comma, the
// way Qwen models learnt JSON from Python's json.dumps.
func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("{")
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, k)
			b.WriteString(": ")
			writeValue(b, v[k])
		}
		b.WriteString("}")
	case []string:
		writeList(b, len(v), func(i int) any { return v[i] })
	case []any:
		writeList(b, len(v), func(i int) any { return v[i] })
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		text := "null" // only values decoded from JSON reach here, and they encode
		if enc.Encode(v) == nil {
			text = strings.TrimSuffix(buf.String(), "\n")
		}
		b.WriteString(text)
	}
}

func writeList(b *strings.Builder, n int, elem func(int) any) {
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, elem(i))
	}
	b.WriteString("]")
}

// jsonText is v as JSON.
func jsonText(v any) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

// display is v as a person reads it: a string without quotes, anything
// else as JSON.
func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}
