package streamparser

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Mistral is [TOOL_CALLS] followed by a JSON array of calls, or by a
// tool's name, [ARGS] and a JSON object.
const Mistral Dialect = 4

func init() { define(Mistral, &mistral) }

// mistral: [TOOL_CALLS] and then either of the forms Mistral's models
// write. The older, a JSON array with one object per call:
//
//	[TOOL_CALLS] [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]
//
// Each element is a call of its own, with consecutive indexes: its Raw is
// what stands between the brackets and commas that delimit it, spaces
// included, and each CallDelta carries that. So that the calls' Text still
// rebuild the reply, the first call's Text begins with the marker, the
// spaces and the '[', and each call's Text ends with the ',' or ']' after
// it: the example gives two calls with Text
// `[TOOL_CALLS] [{"name": "a", "arguments": {}},` and
// ` {"name": "b", "arguments": {}}]`. A comma or bracket inside a nested
// value or a string splits nothing. An empty array is one invalid, empty
// call.
//
// The newer (tokenizer v11 on: Mistral Small 3.2, Devstral, Magistral),
// one marker per call, the name, [ARGS] and the arguments object, which
// ends at the brace that balances its first one; Raw is from the name on:
//
//	[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}
//
// A marker followed by anything else is an invalid call of just the
// marker, the spaces and any name after it, and the rest is text.
//
// WriteCalls writes the list form, which the instructions teach: every
// Mistral release reads it, and one list holds every call of a reply.
var mistral = syntax{
	name:    "mistral",
	opens:   []string{"[TOOL_CALLS]"},
	body:    '[',
	list:    true,
	argsTag: "[ARGS]",
	argsKey: "arguments",
	shape:   `write [TOOL_CALLS] followed by a JSON array of calls [{"name": "<tool name>", "arguments": {…}}]`,
	noBody:  `neither a JSON array nor a tool name, [ARGS] and a JSON object follow [TOOL_CALLS]`,
	instructions: `To call functions, write [TOOL_CALLS] followed by a json array with one object per call:
[TOOL_CALLS] [{"name": <function-name>, "arguments": <args-json-object>}]`,
	lead:  " [",
	trail: "]",
}

// namedCall splits a call written as name, argsTag and a body.
func (x *syntax) namedCall(raw string) (name, body string, ok bool) {
	if x.argsTag == "" {
		return "", "", false
	}
	name, body, ok = strings.Cut(strings.TrimSpace(raw), x.argsTag)
	return name, body, ok && name != "" && strings.IndexFunc(name, func(r rune) bool { return r > 0x7f || !isIdent(byte(r)) }) < 0
}

// parseNamed reads the arguments object of a call written name[ARGS]{…}.
func (x *syntax) parseNamed(name, body string) (string, json.RawMessage, string) {
	r := jsonReader{cursor: cursor{s: body}, compact: true, out: make([]byte, 0, len(body))}
	if !r.value() || r.i < len(body) {
		err := json.Unmarshal([]byte(body), new(any))
		return "", nil, fmt.Sprintf("the arguments of %s are not valid JSON (%v): write %s%s{…} with a JSON object", name, err, name, x.argsTag)
	}
	r.flush()
	args, reason := x.readArguments(body, r.out)
	if reason != "" {
		return "", nil, reason
	}
	return name, args, ""
}
