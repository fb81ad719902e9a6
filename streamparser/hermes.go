package streamparser

// Hermes is <tool_call>{"name": …, "arguments": {…}}</tool_call>, the
// format of Qwen and Hermes models, and the default.
const Hermes Dialect = 0

func init() { define(Hermes, &hermes) }

// hermes: the call is the JSON between <tool_call> and </tool_call>. The
// closing tag counts only outside JSON strings, so an argument may quote it.
//
//	<tool_call>
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	</tool_call>
var hermes = syntax{
	name:    "hermes",
	opens:   []string{"<tool_call>"},
	close:   "</tool_call>",
	argsKey: "arguments",
	shape:   `write one JSON object {"name": "<tool name>", "arguments": {…}} between <tool_call> and </tool_call>`,
	instructions: `For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>`,
	lead:  "\n",
	trail: "\n</tool_call>",
}
