package streamparser

// Mistral is [TOOL_CALLS] followed by a JSON array of calls.
const Mistral Dialect = 4

func init() { define(Mistral, &mistral) }

// mistral: [TOOL_CALLS] and then a JSON array with one object per call.
// Each element is a call of its own, with consecutive indexes: its Raw is
// what stands between the brackets and commas that delimit it, spaces
// included, and each CallDelta carries that. So that the calls' Text still
// rebuild the reply, the first call's Text begins with the marker, the
// spaces and the '[', and each call's Text ends with the ',' or ']' after
// it. A comma or bracket inside a nested value or a string splits nothing.
//
//	[TOOL_CALLS] [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]
//
// gives two calls with Text `[TOOL_CALLS] [{"name": "a", "arguments": {}},`
// and ` {"name": "b", "arguments": {}}]`. An empty array is one invalid,
// empty call; a marker followed by anything but spaces and '[' is an
// invalid call of just the marker and those spaces, and the rest is text.
var mistral = syntax{
	name:    "mistral",
	opens:   []string{"[TOOL_CALLS]"},
	body:    '[',
	list:    true,
	argsKey: "arguments",
	shape:   `write [TOOL_CALLS] followed by a JSON array of calls [{"name": "<tool name>", "arguments": {…}}]`,
	noBody:  `no JSON array follows [TOOL_CALLS]`,
	instructions: `To call functions, write [TOOL_CALLS] followed by a json array with one object per call:
[TOOL_CALLS] [{"name": <function-name>, "arguments": <args-json-object>}]`,
	lead:  " [",
	trail: "]",
}
