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

// writeJSON writes a call as the JSON object of the JSON dialects, the way
// Qwen models learnt it from Python's json.dumps: `{"name": …, "arguments":
// {…}}` with a space after every colon and comma. Text stays UTF-8.
func writeJSON(b *strings.Builder, name, argsKey string, args []argument) {
	b.WriteString(`{"name": `)
	writeValue(b, name, false)
	b.WriteString(`, "` + argsKey + `": {`)
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, a.name, false)
		b.WriteString(": ")
		writeValue(b, a.value, false)
	}
	b.WriteString("}}")
}

// writePython writes a call as Python with keyword arguments:
// name(a=1, b="x").
func writePython(b *strings.Builder, name string, args []argument) {
	b.WriteString(name + "(")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.name + "=")
		writeValue(b, a.value, true)
	}
	b.WriteString(")")
}

// writeValue writes v as JSON or, with python, as a Python literal. The two
// differ only in true, false and null: a JSON string is a Python string
// literal of the same text, and a JSON number a Python number.
func writeValue(b *strings.Builder, v any, python bool) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteString("{")
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, k, python)
			b.WriteString(": ")
			writeValue(b, v[k], python)
		}
		b.WriteString("}")
	case []string:
		writeList(b, len(v), func(i int) any { return v[i] }, python)
	case []any:
		writeList(b, len(v), func(i int) any { return v[i] }, python)
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		text := "null" // only values decoded from JSON reach here, and they encode
		if enc.Encode(v) == nil {
			text = strings.TrimSuffix(buf.String(), "\n")
		}
		if word, ok := pythonWords[text]; python && ok {
			text = word
		}
		b.WriteString(text)
	}
}

// pythonWords are the Python literals for JSON's true, false and null.
var pythonWords = map[string]string{"true": "True", "false": "False", "null": "None"}

func writeList(b *strings.Builder, n int, elem func(int) any, python bool) {
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		writeValue(b, elem(i), python)
	}
	b.WriteString("]")
}

// jsonText is v as JSON.
func jsonText(v any) string {
	var b strings.Builder
	writeValue(&b, v, false)
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
