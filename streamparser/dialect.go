package streamparser

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Dialect is a way of writing tool calls in reply text. A model writes the
// one it was trained on, or the one its system prompt describes.
type Dialect uint8

const (
	// Hermes is <tool_call>{"name": …, "arguments": {…}}</tool_call>, the
	// format of Qwen and Hermes models, and the default.
	Hermes Dialect = iota
	// Marker is >>>CALL_FUNCTION<<< followed by one JSON object.
	Marker
	// Pythonic is <<function>>name(a=1, b="x"), or a bare name(a=1) of a
	// tool listed in Options.Tools.
	Pythonic
	// Llama3 is <|python_tag|> followed by a JSON object, or a bare JSON
	// object {"name": …, "parameters": {…}} at the start of the reply.
	Llama3
	// Mistral is [TOOL_CALLS] followed by a JSON array of calls.
	Mistral
	// Fenced is a ```json block holding {"name": …, "arguments": {…}}.
	Fenced
)

var syntaxes = [...]*syntax{
	Hermes:   &hermes,
	Marker:   &marker,
	Pythonic: &pythonic,
	Llama3:   &llama3,
	Mistral:  &mistral,
	Fenced:   &fenced,
}

// Dialects lists every dialect, the default first.
func Dialects() []Dialect {
	ds := make([]Dialect, len(syntaxes))
	for i := range ds {
		ds[i] = Dialect(i)
	}
	return ds
}

// DialectNames lists every dialect's name, the default first.
func DialectNames() []string {
	names := make([]string, len(syntaxes))
	for i, x := range syntaxes {
		names[i] = x.name
	}
	return names
}

// String returns the dialect's name, as ParseDialect reads it.
func (d Dialect) String() string {
	if int(d) < len(syntaxes) {
		return syntaxes[d].name
	}
	return fmt.Sprintf("Dialect(%d)", d)
}

// ParseDialect returns the dialect with the given name, ignoring case.
func ParseDialect(name string) (Dialect, error) {
	for i, x := range syntaxes {
		if strings.EqualFold(name, x.name) {
			return Dialect(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tool-call dialect %q: use one of %s", name, strings.Join(DialectNames(), ", "))
}

func (d Dialect) syntax() *syntax {
	if int(d) >= len(syntaxes) {
		panic(fmt.Sprintf("streamparser: unknown %v in Options; use one of Dialects()", d))
	}
	return syntaxes[d]
}

// syntax is what the parser needs to know of a dialect. A call either ends
// at a closing tag, or where the brackets it opens balance: then the bytes
// between the marker and the first bracket are its prelude.
type syntax struct {
	name string
	// opens are the markers that open a call in reply text.
	opens []string
	// close is the tag that ends a call; empty when brackets end it.
	close string
	// body is the bracket that opens a bracket-ended call's body.
	body byte
	// lang is the language of calls. In Python, strings take either
	// quote, parentheses nest, a tool name comes before the body, and a
	// known tool's bare name( opens a call.
	lang lang
	// list: the body is a list of calls, split at its top-level commas.
	list bool
	// bareObject: a '{' at the start of the reply opens a call.
	bareObject bool
	// shape tells the model how to write a call; reasons end with it.
	shape string
	// noBody says what is wrong when no body follows a marker; the
	// reason goes on with shape.
	noBody string
	// argsKey is the arguments' field in the JSON dialects, for reasons.
	argsKey string

	// Set by init: the tags that matter in reply text, their first bytes
	// for a fast scan, the tag that ends a call, if any, and the bytes
	// that matter in a call outside strings: the closing tag's first, or
	// the brackets (and a list's comma).
	textTags  []string
	firsts    byteSet
	closeTags []string
	stops     byteSet
}

func init() {
	for _, x := range syntaxes {
		x.textTags = append([]string{thinkOpen}, x.opens...)
		x.firsts = firstBytes(x.textTags)
		if x.close != "" {
			x.closeTags = []string{x.close}
			x.stops[x.close[0]] = true
			continue
		}
		for c, d := range bracketDepth[x.lang] {
			if d != 0 {
				x.stops[c] = true
			}
		}
		x.stops[','] = x.list
	}
}

// parse reads a closed call's Raw.
func (x *syntax) parse(raw string) (name string, args json.RawMessage, reason string) {
	if x.lang == pythonLang {
		return x.parsePython(raw)
	}
	return x.parseJSON(raw)
}
