package streamparser

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pythonic is <<function>>name(a=1, b="x"), or a bare name(a=1) of a
// tool listed in Options.Tools. It is gorilla-openfunctions-v2's format,
// and ParseDialect reads it as "gorilla" too.
const Pythonic Dialect = 2

func init() { define(Pythonic, &pythonic) }

// pythonic: a call is written as Python, name(arg=value, …), either after
// <<function>> or bare, where name is one of Options.Tools and stands
// where a call can (see callCanStart: not in the middle of prose). The
// call ends at the parenthesis
// that balances its first one; strings in either quote, with backslash
// escapes, hide brackets. Raw is name(…), with any spaces after the marker.
//
// Several calls follow one another: each after its own marker, as
// gorilla-openfunctions-v2 writes them, "<<function>>a(x=1)<<function>>b()";
// separated by ", " or "; "; or in a Python list, as Llama 3.2 writes them,
// "[a(x=1), b()]", where '[' followed by a known tool's name and '(' opens
// the list and each element is a call, as in Mistral's list. The
// separators and the list's brackets are in the calls' Text.
//
// Arguments must be named, and their values Python literals, converted to
// JSON: strings, numbers, True/False/None (or true/false/null), lists and
// tuples (arrays), and dicts with string keys (objects). Anything else,
// a positional argument above all, makes the call invalid, with a reason
// that says how to write it.
//
//	<<function>>get_weather(city="Paris", days=3)
//	get_weather(city='Paris', hours=[9, 12], units=None)
var pythonic = syntax{
	name:    "pythonic",
	aliases: []string{"gorilla"},
	seps:    ",;",
	opens:   []string{"<<function>>"},
	body:    '(',
	lang:    pythonLang,
	shape:   "write <<function>>name(arg=value, …) with every argument named and every value a Python literal",
	noBody:  "no tool name and '(' follow <<function>>",
	instructions: `For each function call, write <<function>> followed by a Python function call with keyword arguments:
<<function>>function_name(argument_name="value", other_argument=2)`,
}

// parsePython reads name(arg=value, …).
func (x *syntax) parsePython(raw string) (string, json.RawMessage, string) {
	s := strings.TrimSpace(raw)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return "", nil, "the call has no '(': " + x.shape
	}
	name := s[:open]
	if name == "" {
		return "", nil, "the call has no tool name before '(': " + x.shape
	}
	r := pyReader{cursor: cursor{s: s, i: open + 1}}
	if err := r.arguments(name); err != nil {
		return "", nil, fmt.Sprintf("cannot read the arguments of %s: %v", name, err)
	}
	return name, r.out, ""
}

// pyReader converts Python literals to compact JSON, appended to out.
type pyReader struct {
	cursor
	depth int
	out   []byte
}

// maxDepth bounds the nesting of values, and so the reader's recursion.
const maxDepth = 1000

var errNotLiteral = errors.New("quote strings, and write only numbers, True, False, None, lists, tuples and dicts")

// arguments reads the arguments after the call's '(' into a JSON object.
func (r *pyReader) arguments(name string) error {
	var seen []string
	err := r.pairs(')', func() error {
		start := r.i
		arg := r.word()
		r.space()
		if arg == "" || '0' <= arg[0] && arg[0] <= '9' || !r.eat('=') {
			return fmt.Errorf("%s has no name: write every argument as name=value, with the parameter names of %s", r.excerpt(start), name)
		}
		if slices.Contains(seen, arg) {
			return fmt.Errorf("%s is given twice: give each argument once", arg)
		}
		seen = append(seen, arg)
		r.out = strconv.AppendQuote(r.out, arg) // a Python name needs no JSON escapes
		return nil
	})
	if err == nil && r.i < len(r.s) {
		err = fmt.Errorf("%s follows the closing ')'", r.excerpt(r.i))
	}
	return err
}

// value reads one literal.
func (r *pyReader) value() error {
	if r.depth++; r.depth > maxDepth {
		return fmt.Errorf("the values nest more than %d deep", maxDepth)
	}
	defer func() { r.depth-- }()
	if r.i == len(r.s) {
		return errors.New("a value is missing")
	}
	switch c := r.s[r.i]; {
	case c == '"' || c == '\'':
		return r.str()
	case c == '[':
		return r.array(']')
	case c == '(':
		return r.array(')')
	case c == '{':
		r.i++
		return r.pairs('}', r.key)
	case c == '-' || c == '+' || c == '.' || '0' <= c && c <= '9':
		return r.number()
	}
	start := r.i
	switch r.word() {
	case "True", "true":
		r.out = append(r.out, "true"...)
	case "False", "false":
		r.out = append(r.out, "false"...)
	case "None", "null":
		r.out = append(r.out, "null"...)
	default:
		return fmt.Errorf("%s is not a Python literal: %w", r.excerpt(start), errNotLiteral)
	}
	return nil
}

// array reads a list or a tuple, whose '[' or '(' is at r.i, into a JSON array.
func (r *pyReader) array(close byte) error {
	r.i++
	r.out = append(r.out, '[')
	err := r.items(close, r.value)
	r.out = append(r.out, ']')
	return err
}

// pairs reads key-value pairs up to close into a JSON object. key reads
// a key and the separator after it, and writes the key.
func (r *pyReader) pairs(close byte, key func() error) error {
	r.out = append(r.out, '{')
	err := r.items(close, func() error {
		if err := key(); err != nil {
			return err
		}
		r.out = append(r.out, ':')
		r.space()
		return r.value()
	})
	r.out = append(r.out, '}')
	return err
}

// key reads a dict's key and its ':'.
func (r *pyReader) key() error {
	if r.i == len(r.s) || r.s[r.i] != '"' && r.s[r.i] != '\'' {
		return fmt.Errorf("the dict key %s is not a string: JSON objects have string keys", r.excerpt(r.i))
	}
	if err := r.str(); err != nil {
		return err
	}
	r.space()
	if !r.eat(':') {
		return fmt.Errorf("':' is missing after a dict key, before %s", r.excerpt(r.i))
	}
	return nil
}

// items reads comma-separated items up to close, which a comma may
// precede, and writes commas between them.
func (r *pyReader) items(close byte, item func() error) error {
	for n := 0; ; n++ {
		r.space()
		if r.eat(close) {
			return nil
		}
		if n > 0 {
			if !r.eat(',') {
				return fmt.Errorf("',' or %q is missing before %s", close, r.excerpt(r.i))
			}
			r.space()
			if r.eat(close) {
				return nil
			}
			r.out = append(r.out, ',')
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// number reads an int or a float, in any form Python reads a literal.
func (r *pyReader) number() error {
	start := r.i
	for r.i++; r.i < len(r.s); r.i++ {
		c, prev := r.s[r.i], r.s[r.i-1]
		if !isWord(c) && c != '.' && !((c == '+' || c == '-') && (prev == 'e' || prev == 'E')) {
			break
		}
	}
	tok := strings.ReplaceAll(r.s[start:r.i], "_", "")
	if json.Valid([]byte(tok)) {
		r.out = append(r.out, tok...)
		return nil
	}
	if n, err := strconv.ParseInt(tok, 0, 64); err == nil {
		r.out = strconv.AppendInt(r.out, n, 10)
		return nil
	}
	if f, err := strconv.ParseFloat(tok, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		r.out = strconv.AppendFloat(r.out, f, 'g', -1, 64)
		return nil
	}
	return fmt.Errorf("%s is not a number: %w", r.excerpt(start), errNotLiteral)
}

// str reads a string, whose quote is at r.i, into a JSON string.
func (r *pyReader) str() error {
	quote := r.s[r.i]
	r.out = append(r.out, '"')
	for r.i++; r.i < len(r.s); {
		switch c := r.s[r.i]; c {
		case quote:
			r.i++
			r.out = append(r.out, '"')
			return nil
		case '\\':
			if err := r.escape(); err != nil {
				return err
			}
		default:
			ch, n := utf8.DecodeRuneInString(r.s[r.i:])
			r.out = appendJSONRune(r.out, ch)
			r.i += n
		}
	}
	return errors.New("a string is not closed")
}

var simpleEscapes = map[byte]rune{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', 'v': '\v', 'a': '\a',
	'\\': '\\', '\'': '\'', '"': '"'}

// escape reads a backslash escape in a string.
func (r *pyReader) escape() error {
	r.i++
	if r.i == len(r.s) {
		return errors.New("a string ends in a backslash")
	}
	c := r.s[r.i]
	r.i++
	if ch, ok := simpleEscapes[c]; ok {
		r.out = appendJSONRune(r.out, ch)
		return nil
	}
	digits, base := 0, 16
	switch c {
	case '\n': // a line continuation
		return nil
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	case '0', '1', '2', '3', '4', '5', '6', '7':
		r.i--
		base = 8
		for digits < 3 && r.i+digits < len(r.s) && '0' <= r.s[r.i+digits] && r.s[r.i+digits] <= '7' {
			digits++
		}
	default:
		// Python keeps the backslash of an escape it does not know.
		r.i--
		r.out = append(r.out, `\\`...)
		return nil
	}
	if r.i+digits > len(r.s) {
		return fmt.Errorf("the escape \\%c needs %d digits", c, digits)
	}
	n, err := strconv.ParseUint(r.s[r.i:r.i+digits], base, 32)
	if err != nil {
		return fmt.Errorf("the escape \\%s is not valid", r.s[r.i-1:r.i+digits])
	}
	if n > unicode.MaxRune {
		// As Python does: \U80000000 is a syntax error, not a character.
		return fmt.Errorf("the escape \\%s is beyond Unicode", r.s[r.i-1:r.i+digits])
	}
	r.i += digits
	r.out = appendJSONRune(r.out, rune(n))
	return nil
}

// appendJSONRune appends ch as it stands in a JSON string; a rune that is
// not valid Unicode becomes U+FFFD.
func appendJSONRune(b []byte, ch rune) []byte {
	switch {
	case ch == '"' || ch == '\\':
		return append(b, '\\', byte(ch))
	case ch == '\n':
		return append(b, `\n`...)
	case ch == '\t':
		return append(b, `\t`...)
	case ch == '\r':
		return append(b, `\r`...)
	case ch < 0x20:
		return fmt.Appendf(b, `\u%04x`, ch)
	}
	return utf8.AppendRune(b, ch)
}

// word reads a Python name, or a word such as True.
func (r *pyReader) word() string {
	start := r.i
	for r.i < len(r.s) && isWord(r.s[r.i]) {
		r.i++
	}
	return r.s[start:r.i]
}

// excerpt quotes what stands at from, for a reason.
func (r *pyReader) excerpt(from int) string {
	end := from
	for end < len(r.s) && end-from < 20 && r.s[end] != ',' && r.s[end] != ')' {
		end++
	}
	if end == from {
		return "the end of the call"
	}
	return strconv.Quote(excerpt(r.s[from:end]))
}

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
