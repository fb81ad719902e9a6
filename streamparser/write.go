package streamparser

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Draft is a call to write in a dialect, as a model would.
type Draft struct {
	Name string
	Args []Arg // in the order they are written
}

// Arg is one named argument of a Draft. Value is JSON, written as given
// in the JSON dialects, as the Python literal of the same text in
// Pythonic (true, false and null become True, False and None), and in
// Qwen3Coder bare if a string, else as given.
type Arg struct {
	Name  string
	Value json.RawMessage
}

// NewDraft returns the Draft of a call to name with arguments, a JSON
// object such as a Call's, its members in the order they are written: a
// call that was read, or changed, is written back in the same order.
func NewDraft(name string, arguments json.RawMessage) (Draft, error) {
	dec := json.NewDecoder(bytes.NewReader(arguments))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Draft{}, errors.New("the arguments are not a JSON object")
	}
	d := Draft{Name: name}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return Draft{}, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return Draft{}, err
		}
		d.Args = append(d.Args, Arg{Name: key.(string), Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return Draft{}, err
	}
	if dec.More() {
		return Draft{}, errors.New("the arguments hold more than one JSON object")
	}
	return d, nil
}

// WriteCalls writes calls in d the way a model taught by d's Instructions
// writes them: each call on a line of its own, or in a list dialect all of
// them in one list. JSON bodies are spaced as Python's json.dumps spaces
// them, the text Qwen and Hermes models learnt from: {"name": "x",
// "arguments": {"a": 1}}. It writes nothing for no calls, since an empty
// list would be an invalid call of its own.
func (d Dialect) WriteCalls(b *strings.Builder, calls []Draft) {
	x := d.syntax()
	for i, c := range calls {
		switch {
		case i == 0:
			b.WriteString(x.opens[0] + x.lead)
		case x.list:
			b.WriteString(", ")
		default:
			b.WriteString(x.trail + "\n" + x.opens[0] + x.lead)
		}
		x.writeBody(b, c)
	}
	if len(calls) > 0 {
		b.WriteString(x.trail)
	}
}

// writeBody writes one call without its marker.
func (x *syntax) writeBody(b *strings.Builder, c Draft) {
	if x.lang == xmlLang {
		writeXMLBody(b, c)
		return
	}
	if x.lang == pythonLang {
		b.WriteString(c.Name + "(")
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Name + "=")
			writePythonLiteral(b, a.Value)
		}
		b.WriteString(")")
		return
	}
	b.WriteString(`{"name": ` + quote(c.Name) + `, "` + x.argsKey + `": {`)
	for i, a := range c.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(a.Name) + ": ")
		b.Write(a.Value)
	}
	b.WriteString("}}")
}

// quote writes s as a JSON string, leaving <, > and & as they are: a
// model writes them, not their escapes.
func quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// pythonWords are the Python literals of JSON's true, false and null.
var pythonWords = [...][2]string{{"true", "True"}, {"false", "False"}, {"null", "None"}}

// writePythonLiteral writes the JSON value v as a Python literal. The two
// differ only in true, false and null: a JSON string is a Python string
// literal of the same text, and a JSON number a Python number.
func writePythonLiteral(b *strings.Builder, v json.RawMessage) {
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inString && c == '\\' && i+1 < len(v):
			b.WriteByte(c)
			i++
			c = v[i]
		case c == '"':
			inString = !inString
		case !inString:
			if w, ok := pythonWord(v[i:]); ok {
				b.WriteString(w[1])
				i += len(w[0]) - 1
				continue
			}
		}
		b.WriteByte(c)
	}
}

func pythonWord(v []byte) ([2]string, bool) {
	for _, w := range pythonWords {
		if bytes.HasPrefix(v, []byte(w[0])) {
			return w, true
		}
	}
	return [2]string{}, false
}
