package streamparser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Call is a tool call as the model wrote it.
type Call struct {
	// Name is the tool to run; empty when Reason is set.
	Name string
	// Arguments is a compact JSON object, "{}" when the model gave none.
	Arguments json.RawMessage
	// Raw is everything between <tool_call> and </tool_call>, as written.
	Raw string
	// Reason says why the call cannot run, in words the model can act on;
	// empty for a valid call.
	Reason string
}

const callShape = `write one JSON object {"name": "<tool name>", "arguments": {…}} between <tool_call> and </tool_call>`

// parseCall reads the JSON between the tags. It is lenient where models
// commonly drift and the intent is clear (arguments given as a JSON string,
// "parameters" instead of "arguments"), and strict elsewhere, since a
// clear error teaches the model the format.
func parseCall(raw string) *Call {
	c := &Call{Raw: raw}
	body := strings.TrimSpace(raw)
	var fields map[string]json.RawMessage
	switch {
	case body == "":
		c.Reason = "the <tool_call> is empty: " + callShape
	case body[0] == '[':
		c.Reason = "the <tool_call> holds a JSON array: put each call in its own <tool_call> block and " + callShape
	case body[0] != '{':
		c.Reason = "the <tool_call> does not hold a JSON object: " + callShape
	default:
		if err := json.Unmarshal([]byte(body), &fields); err != nil {
			c.Reason = fmt.Sprintf("the <tool_call> is not valid JSON (%v): %s", err, callShape)
		}
	}
	if c.Reason != "" {
		return c
	}
	name, reason := readName(fields["name"])
	if reason != "" {
		c.Reason = reason
		return c
	}
	args, ok := fields["arguments"]
	if !ok {
		args = fields["parameters"]
	}
	compact, reason := readArguments(args)
	if reason != "" {
		c.Reason = reason
		return c
	}
	c.Name, c.Arguments = name, compact
	return c
}

func readName(v json.RawMessage) (string, string) {
	if v == nil {
		return "", `the call has no "name": ` + callShape
	}
	var name string
	if json.Unmarshal(v, &name) != nil || strings.TrimSpace(name) == "" {
		return "", fmt.Sprintf(`"name" must be a tool name in a string, got %s`, excerpt(v))
	}
	return strings.TrimSpace(name), ""
}

func readArguments(v json.RawMessage) (json.RawMessage, string) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return json.RawMessage("{}"), ""
	}
	if v[0] == '"' {
		// Some models write the arguments object as a JSON string.
		var inner string
		if json.Unmarshal(v, &inner) == nil {
			v = bytes.TrimSpace([]byte(inner))
		}
	}
	if len(v) == 0 || v[0] != '{' || !json.Valid(v) {
		return nil, fmt.Sprintf(`"arguments" must be a JSON object, got %s`, excerpt(v))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return nil, fmt.Sprintf(`"arguments" is not valid JSON: %v`, err)
	}
	return b.Bytes(), ""
}

// excerpt keeps error messages short when the model wrote a lot.
func excerpt(v []byte) string {
	const most = 60
	if len(v) <= most {
		return string(v)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "…"
}
