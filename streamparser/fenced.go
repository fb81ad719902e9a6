package streamparser

// Fenced is a ```json block holding {"name": …, "arguments": {…}}.
const Fenced Dialect = 5

func init() { define(Fenced, &fenced) }

// fenced: the call is the JSON in a Markdown code block marked json, for
// models prompted to answer in Markdown. Every ```json block in the reply
// is read as a call; the closing ``` counts only outside JSON strings.
//
//	```json
//	{"name": "get_weather", "arguments": {"city": "Paris"}}
//	```
var fenced = syntax{
	name:         "fenced",
	opens:        []string{"```json"},
	close:        "```",
	argsKey:      "arguments",
	shape:        "write one JSON object {\"name\": \"<tool name>\", \"arguments\": {…}} in a ```json block",
	instructions: "For each function call, write a json code block holding an object with function name and arguments:\n```json\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n```",
	lead:         "\n",
	trail:        "\n```",
}
