package streamparser

// Marker is >>>CALL_FUNCTION<<< followed by one JSON object.
const Marker Dialect = 1

func init() { define(Marker, &marker) }

// marker: >>>CALL_FUNCTION<<< and then one JSON object, which ends at the
// brace that balances its first one. Raw is the spaces after the marker
// and the object. A marker followed by anything but spaces and '{' is an
// invalid call of just the marker and those spaces; the rest is text.
//
//	>>>CALL_FUNCTION<<< {"name": "get_weather", "arguments": {"city": "Paris"}}
var marker = syntax{
	name:    "marker",
	opens:   []string{">>>CALL_FUNCTION<<<"},
	body:    '{',
	argsKey: "arguments",
	shape:   `write >>>CALL_FUNCTION<<< followed by one JSON object {"name": "<tool name>", "arguments": {…}}`,
	noBody:  `no JSON object follows >>>CALL_FUNCTION<<<`,
	instructions: `For each function call, write >>>CALL_FUNCTION<<< followed by a json object with function name and arguments:
>>>CALL_FUNCTION<<< {"name": <function-name>, "arguments": <args-json-object>}`,
	lead: " ",
}
