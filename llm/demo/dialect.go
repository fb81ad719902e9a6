package demo

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolscope/toolscope/streamparser"
)

// readDialect tells the dialect a system prompt teaches by the first call
// marker its instructions show, after the tools; Hermes when they show none.
// Of two dialects with one marker (Qwen3-Coder's <tool_call> is Hermes's),
// the one whose instructions the prompt holds is taught.
func readDialect(system string) streamparser.Dialect {
	if _, after, ok := strings.Cut(system, "</tools>"); ok {
		system = after
	}
	d, at := streamparser.Hermes, len(system)
	for _, each := range streamparser.Dialects() {
		if i := strings.Index(system, each.Marker()); i >= 0 && (i < at || i == at && strings.Contains(system, each.Instructions())) {
			d, at = each, i
		}
	}
	return d
}

// writeCalls writes calls in dialect d: how to write a call is the
// dialect's own knowledge, the demo brings the calls and their arguments,
// which args gives in the order the model writes them.
func writeCalls(b *strings.Builder, d streamparser.Dialect, calls []call, args func(call) []argument) {
	drafts := make([]streamparser.Draft, len(calls))
	for i, k := range calls {
		drafts[i].Name = k.name
		for _, a := range args(k) {
			drafts[i].Args = append(drafts[i].Args, streamparser.Arg{Name: a.name, Value: json.RawMessage(jsonText(a.value))})
		}
	}
	d.WriteCalls(b, drafts)
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
	p, err := streamparser.New(streamparser.Options{Dialect: d, Tools: tools})
	if err != nil {
		return nil // not reached: readDialect gives one of streamparser.Dialects()
	}
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
