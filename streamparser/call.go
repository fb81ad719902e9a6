package streamparser

import (
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
	// Raw is the call's payload as written: what stands between its
	// markers, and what its CallDelta events carried.
	Raw string
	// Text is the whole call as written, its markers or tags included (an
	// unclosed call has no closing tag). The Text of every call, with the
	// reply's Text and Thinking events and thinking tags, rebuilds the
	// reply byte for byte.
	Text string
	// Reason says why the call cannot run, in words the model can act on;
	// empty for a valid call.
	Reason string
}

// Unclosed is the Reason of a call that the reply ended inside, in every
// dialect.
const Unclosed = "the reply ended inside the call: finish each call, up to its closing tag or the bracket that closes its first one, before ending the reply"

// parseJSON reads a call written as a JSON object. It is lenient where
// models commonly drift and the intent is clear (arguments given as a JSON
// string, "parameters" for "arguments" and the reverse), and strict
// elsewhere, since a clear error teaches the model the format.
func (x *syntax) parseJSON(raw string) (string, json.RawMessage, string) {
	body := strings.TrimSpace(raw)
	switch {
	case body == "":
		return "", nil, "the call is empty: " + x.shape
	case body[0] == '[':
		return "", nil, "the call holds a JSON array, not one object: " + x.shape
	case body[0] != '{':
		return "", nil, "the call is not a JSON object: " + x.shape
	}
	// Of a field given twice the last counts, as in encoding/json. The
	// reader compacts as it validates: the arguments need no second pass.
	var name, args, params member
	r := jsonReader{cursor: cursor{s: body}, compact: true, out: make([]byte, 0, len(body))}
	valid := r.object(func(m member) {
		switch unquote(m.key) {
		case "name":
			name = m
		case "arguments":
			args = m
		case "parameters":
			params = m
		}
	})
	if !valid || r.i < len(body) {
		// encoding/json words the error.
		err := json.Unmarshal([]byte(body), new(any))
		return "", nil, fmt.Sprintf("the call is not valid JSON (%v): %s", err, x.shape)
	}
	r.flush()
	toolName, reason := x.readName(name.value)
	if reason != "" {
		return "", nil, reason
	}
	if args.value == "" {
		args = params
	}
	compact, reason := x.readArguments(args.value, r.out[args.start:args.end:args.end])
	if reason != "" {
		return "", nil, reason
	}
	return toolName, compact, ""
}

func (x *syntax) readName(v string) (string, string) {
	if v == "" {
		return "", `the call has no "name": ` + x.shape
	}
	name := ""
	if v[0] == '"' {
		name = strings.TrimSpace(unquote(v))
	}
	if name == "" {
		return "", fmt.Sprintf(`"name" must be a tool name in a string, got %s`, excerpt(v))
	}
	return name, ""
}

// readArguments reads the arguments' value v; compact is v without the
// spaces between its tokens.
func (x *syntax) readArguments(v string, compact []byte) (json.RawMessage, string) {
	if v == "" || v == "null" {
		return json.RawMessage("{}"), ""
	}
	if v[0] == '"' {
		// Some models write the arguments object as a JSON string.
		if inner := strings.TrimSpace(unquote(v)); json.Valid([]byte(inner)) {
			v = inner
			compact = appendCompact(make([]byte, 0, len(v)), v)
		}
	}
	if v[0] != '{' {
		return nil, fmt.Sprintf(`%q must be a JSON object, got %s`, x.argsKey, excerpt(v))
	}
	return compact, ""
}

// unquote decodes a valid JSON string.
func unquote(s string) string {
	if strings.IndexByte(s, '\\') < 0 && utf8.ValidString(s) {
		return s[1 : len(s)-1] // the common case: nothing to decode
	}
	var decoded string
	_ = json.Unmarshal([]byte(s), &decoded) // cannot fail on a valid string
	return decoded
}

// excerpt keeps reasons short when the model wrote a lot.
func excerpt[T ~string | ~[]byte](v T) string {
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
