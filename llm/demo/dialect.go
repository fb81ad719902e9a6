package demo

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolscope/toolscope/streamparser"
)

// format is how the demo model writes calls in one dialect, as the system
// prompt teaches it.
type format struct {
	dialect streamparser.Dialect
	// marker opens a call, or, in a list, all of them. It is one token.
	marker string
	// open comes after the marker and close after the call; in a list
	// they surround all the calls, separated by ", ".
	open, close string
	argsKey     string // the JSON field of the arguments; "" for Python
	list        bool
}

// formats are the dialects the demo model writes in, the default first.
var formats = []format{
	{dialect: streamparser.Hermes, marker: "<tool_call>", open: "\n", close: "\n</tool_call>", argsKey: "arguments"},
	{dialect: streamparser.Marker, marker: ">>>CALL_FUNCTION<<<", open: " ", argsKey: "arguments"},
	{dialect: streamparser.Pythonic, marker: "<<function>>"},
	{dialect: streamparser.Llama3, marker: "<|python_tag|>", argsKey: "parameters"},
	{dialect: streamparser.Mistral, marker: "[TOOL_CALLS]", open: " [", close: "]", argsKey: "arguments", list: true},
	{dialect: streamparser.Fenced, marker: "```json", open: "\n", close: "\n```", argsKey: "arguments"},
}

func formatOf(d streamparser.Dialect) format {
	for _, f := range formats {
		if f.dialect == d {
			return f
		}
	}
	return formats[0]
}

// readDialect tells the dialect a system prompt teaches by the first call
// marker its instructions show, after the tools; Hermes when they show none.
func readDialect(system string) streamparser.Dialect {
	if _, after, ok := strings.Cut(system, "</tools>"); ok {
		system = after
	}
	d, at := streamparser.Hermes, len(system)
	for _, f := range formats {
		if i := strings.Index(system, f.marker); i >= 0 && i < at {
			d, at = f.dialect, i
		}
	}
	return d
}

// write writes calls one after another, a line each, or all in one list;
// args gives the arguments of each as written.
func (f format) write(b *strings.Builder, calls []call, args func(call) []argument) {
	if len(calls) == 0 {
		return // an empty list would be a call of its own
	}
	bodies := make([]string, len(calls))
	for i, k := range calls {
		var body strings.Builder
		if f.argsKey == "" {
			writePython(&body, k.name, args(k))
		} else {
			writeJSON(&body, k.name, f.argsKey, args(k))
		}
		bodies[i] = body.String()
	}
	if f.list {
		b.WriteString(f.marker + f.open + strings.Join(bodies, ", ") + f.close)
		return
	}
	for i, body := range bodies {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(f.marker + f.open + body + f.close)
	}
}

// readCalls reads the calls of an earlier reply as toolscope reads them,
// with its parser, in dialect d; tools are the offered tools' names.
// Calls written while thinking are not calls. A call that does not parse
// still counts, as one with no name, so that results keep lining up with
// calls.
func readCalls(reply string, d streamparser.Dialect, tools []string) []call {
	var calls []call
	collect := func(e streamparser.Event) {
		switch e.Kind {
		case streamparser.CallParsed:
			calls = append(calls, call{name: e.Call.Name, args: decodeArgs(e.Call.Arguments)})
		case streamparser.CallInvalid:
			calls = append(calls, call{})
		}
	}
	p := streamparser.New(streamparser.Options{Dialect: d, Tools: tools})
	p.Feed(reply, collect)
	p.Flush(collect)
	return calls
}

// decodeArgs decodes the arguments of a parsed call, which the parser
// made a JSON object, keeping numbers as written.
func decodeArgs(raw json.RawMessage) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	_ = dec.Decode(&args) // the parser hands on only objects
	return args
}
