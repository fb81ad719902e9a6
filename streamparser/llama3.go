package streamparser

// Llama3 is <|python_tag|> followed by a JSON object, or a bare JSON
// object {"name": …, "parameters": {…}} at the start of the reply.
const Llama3 Dialect = 3

func init() { define(Llama3, &llama3) }

// llama3: Llama 3.1 and later write a call as a JSON object, either after
// <|python_tag|> or bare, as the whole reply. The object ends at the brace
// that balances its first one.
//
// A bare '{' opens a call only where a call can stand: at the start of
// the reply, after spaces and thinking, or right after another call, with
// spaces and ';' between (Llama separates calls with "; ", which with
// the spaces around it is in the next call's Text). Anywhere else
// a brace is text, so prose and code that quote JSON stay text. A '{' that
// opens a call and never balances ends the reply as an unclosed call.
//
//	{"name": "get_weather", "parameters": {"city": "Paris"}}
//	<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}
var llama3 = syntax{
	name:       "llama3",
	opens:      []string{"<|python_tag|>"},
	body:       '{',
	bareObject: true,
	seps:       ";",
	argsKey:    "parameters",
	shape:      `write one JSON object {"name": "<tool name>", "parameters": {…}}, alone at the start of the reply or after <|python_tag|>`,
	noBody:     `no JSON object follows <|python_tag|>`,
	instructions: `For each function call, write <|python_tag|> followed by a json object with function name and parameters:
<|python_tag|>{"name": <function-name>, "parameters": <args-json-object>}`,
}
