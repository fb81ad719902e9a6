// Package mcpserver holds toolscope's own MCP servers, a [Calculator] and
// a unit [Converter], built with the official Go SDK and served over
// stdio, streamable HTTP or HTTP+SSE by [Serve]. They are examples of MCP
// servers as much as tools: small, honest about what they take, and
// forgiving of the argument names small models make up.
//
// # Schemas
//
// Each tool is added with [mcp.AddTool] and a typed handler: the SDK
// infers the input schema from the Go input type, so numbers are typed
// "number" (or "integer"), every argument without omitempty is required,
// descriptions come from the fields' jsonschema tags, and no other
// argument is allowed. A client that checks calls against the schema, as
// toolscope does, refuses multiply(x=6, y=7) and tells the model which
// arguments are missing and which it does not know, so that the model
// sees its mistake rather than a silent repair.
//
// # Tolerance
//
// Small models improvise: they call multiply(x=6, y=7) or
// multiply(number1="6", number2="7") as often as multiply(a=6, b=7). For
// clients that pass such calls on unchecked, the servers take them: an
// argument may come under its name or one of the aliases in its field's
// aka tag (compared without case, "_", "-" or spaces), numbers may come
// as strings, {"numbers": [6, 7]} counts as two values, and a value
// missing under every name is taken from the arguments nobody claimed,
// in the order the model wrote them.
//
// The SDK validates the arguments against the schema before it decodes
// them, so this tolerance cannot live in an UnmarshalJSON of the input
// type: every improvised call would be refused first. It runs instead
// as receiving middleware, just before that validation, and rewrites
// the arguments into the form the schema names; the SDK then validates
// that form and the handler receives it typed. A call it cannot make
// sense of gets a tool error saying what the tool needs, with an example.
//
// # Results
//
// A tool answers with text for the model to read ("42", "100 °C = 212 °F")
// and with the same answer as structured content described by its output
// schema. Mistakes such as a division by zero are tool errors (isError),
// which the model reads and can correct, not protocol errors.
package mcpserver
