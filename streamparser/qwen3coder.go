package streamparser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Qwen3Coder is Qwen3-Coder's XML: <tool_call>, <function=name>, one
// <parameter=x> block per argument, </function>, </tool_call>.
const Qwen3Coder Dialect = 6

func init() { define(Qwen3Coder, &qwen3coder) }

// qwen3coder: the call is the XML between <tool_call> and </tool_call>,
// which ends it wherever it stands, as in vLLM's qwen3_coder parser: a
// value cannot hold </tool_call>.
//
//	<tool_call>
//	<function=get_weather>
//	<parameter=city>
//	Paris
//	</parameter>
//	<parameter=days>
//	3
//	</parameter>
//	</function>
//	</tool_call>
//
// Values are written bare, so the tool's schema (Options.Schemas) types
// them: a value whose parameter's "type" is anything but "string" is read
// as JSON, or else as a Python literal (the chat template writes True and
// None), or else kept as the string it is; every other value is a string.
// One newline after <parameter=x> and one before </parameter> are not
// part of the value. As in vLLM, a </parameter> left out ends the value
// at the next <parameter= or at </function>, and </function> may be left
// out; anything else between the blocks makes the call invalid.
var qwen3coder = syntax{
	name:  "qwen3coder",
	opens: []string{"<tool_call>"},
	close: "</tool_call>",
	lang:  xmlLang,
	shape: "write <tool_call>, <function=<tool name>>, one <parameter=<name>> value </parameter> block per argument, </function> and </tool_call>, each on a line of its own",
	instructions: `If you choose to call a function ONLY reply in the following format with NO suffix:

<tool_call>
<function=example_function_name>
<parameter=example_parameter_1>
value_1
</parameter>
<parameter=example_parameter_2>
This is the value for the second parameter
that can span
multiple lines
</parameter>
</function>
</tool_call>

<IMPORTANT>
Reminder:
- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags
- Required parameters MUST be specified
- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after
- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls
</IMPORTANT>`,
	lead:  "\n",
	trail: "\n</tool_call>",
}

const (
	xmlFunction     = "<function="
	xmlFunctionEnd  = "</function>"
	xmlParameter    = "<parameter="
	xmlParameterEnd = "</parameter>"
)

// parseXML reads <function=name> and its <parameter=…> blocks.
func (x *syntax) parseXML(raw string, schemas map[string]json.RawMessage) (string, json.RawMessage, string) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(raw), xmlFunction)
	if !ok {
		return "", nil, "the call does not begin with <function=: " + x.shape
	}
	name, rest, ok := strings.Cut(rest, ">")
	if name = strings.TrimSpace(name); !ok || !isXMLName(name) {
		return "", nil, "<function= is not followed by a tool name and '>': " + x.shape
	}
	typed := typedParameters(schemas[name])
	out := []byte{'{'}
	var seen []string
	for rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, xmlFunctionEnd); rest = strings.TrimSpace(rest) {
		block, ok := strings.CutPrefix(rest, xmlParameter)
		if !ok {
			return "", nil, fmt.Sprintf("%q stands outside a <parameter=…> block: %s", excerpt(rest), x.shape)
		}
		param, block, ok := strings.Cut(block, ">")
		if !ok || !isXMLName(param) {
			return "", nil, "<parameter= is not followed by a parameter name and '>': " + x.shape
		}
		if slices.Contains(seen, param) {
			return "", nil, fmt.Sprintf("the parameter %s is given twice: give each argument once", param)
		}
		seen = append(seen, param)
		var value string
		value, rest = cutValue(block)
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendJSONString(out, param)
		out = append(out, ':')
		out = appendValue(out, value, typed[param])
	}
	if after, _ := strings.CutPrefix(rest, xmlFunctionEnd); strings.TrimSpace(after) != "" {
		return "", nil, fmt.Sprintf("%q follows </function>: %s", excerpt(strings.TrimSpace(after)), x.shape)
	}
	return name, append(out, '}'), ""
}

// isXMLName reports whether a name written after <function= or
// <parameter= can be one: not empty, on one line, with no tag in it.
func isXMLName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "<\n")
}

// cutValue returns the value at the start of s, without the newline on
// each side, and what follows it: after its </parameter>, or from the
// next <parameter= or </function> when it has none.
func cutValue(s string) (value, rest string) {
	end, next := len(s), len(s)
	for _, tag := range [...]string{xmlParameterEnd, xmlParameter, xmlFunctionEnd} {
		if i := strings.Index(s[:end], tag); i >= 0 {
			end, next = i, i
			if tag == xmlParameterEnd {
				next = i + len(tag)
			}
		}
	}
	value = strings.TrimPrefix(s[:end], "\n")
	return strings.TrimSuffix(value, "\n"), s[next:]
}

// appendValue appends a parameter's value: as a string, or if typed as
// the JSON value or Python literal it spells, when it spells one.
func appendValue(out []byte, value string, typed bool) []byte {
	if typed {
		v := strings.TrimSpace(value)
		if json.Valid([]byte(v)) {
			return appendCompact(out, v)
		}
		r := pyReader{cursor: cursor{s: v}, out: out}
		if r.value() == nil && r.i == len(v) {
			return r.out
		}
	}
	return appendJSONString(out, value)
}

// appendJSONString appends s as a JSON string; bytes that are not UTF-8
// become U+FFFD.
func appendJSONString(out []byte, s string) []byte {
	out = append(out, '"')
	for _, r := range s {
		out = appendJSONRune(out, r)
	}
	return append(out, '"')
}

// typedParameters returns the parameters of a schema whose values are not
// strings: those with a "type" other than "string", or a list of types
// without "string".
func typedParameters(schema json.RawMessage) map[string]bool {
	var s struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	typed := map[string]bool{}
	for name, p := range s.Properties {
		var one string
		var many []string
		switch {
		case json.Unmarshal(p.Type, &one) == nil:
			typed[name] = one != "" && one != "string"
		case json.Unmarshal(p.Type, &many) == nil:
			typed[name] = len(many) > 0 && !slices.Contains(many, "string")
		}
	}
	return typed
}

// writeXMLBody writes one call as Qwen3-Coder's chat template does,
// without <tool_call>: a string bare, any other value as JSON.
func writeXMLBody(b *strings.Builder, c Draft) {
	b.WriteString(xmlFunction + c.Name + ">\n")
	for _, a := range c.Args {
		b.WriteString(xmlParameter + a.Name + ">\n")
		var s string
		if len(a.Value) > 0 && a.Value[0] == '"' && json.Unmarshal(a.Value, &s) == nil {
			b.WriteString(s)
		} else {
			b.Write(a.Value)
		}
		b.WriteString("\n" + xmlParameterEnd + "\n")
	}
	b.WriteString(xmlFunctionEnd)
}
