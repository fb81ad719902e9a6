package streamparser

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
}
