package streamparser

import "strings"

// jsonReader reads JSON in one pass without reflection, checking its
// grammar exactly as encoding/json does (FuzzJSONCall holds it to that).
// Reading a call with it is several times faster than decoding the call.
type jsonReader struct {
	cursor
	depth int
	// compact asks for out to receive what is read without the spaces
	// between tokens, so that a call's arguments come out compacted from
	// the pass that validates them. s[from:i] is read but not yet in out.
	compact bool
	out     []byte
	from    int
}

// member is an object's member as read: its key and value as written, and
// where the value is in out when compacting.
type member struct {
	key, value string
	start, end int
}

// cursor is a place in a text being read.
type cursor struct {
	s string
	i int
}

// maxJSONDepth is encoding/json's limit on nesting.
const maxJSONDepth = 10000

// inString marks the bytes that stand for themselves in a JSON string:
// all but the quote, the backslash and control characters.
var inString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// value reads one value and reports whether it is valid.
func (r *jsonReader) value() bool {
	if r.i == len(r.s) {
		return false
	}
	switch c := r.s[r.i]; {
	case c == '{':
		return r.object(nil)
	case c == '[':
		return r.items(']', r.value)
	case c == '"':
		return r.str()
	case c == '-' || '0' <= c && c <= '9':
		return r.number()
	}
	for _, word := range [...]string{"true", "false", "null"} {
		if strings.HasPrefix(r.s[r.i:], word) {
			r.i += len(word)
			return true
		}
	}
	return false
}

// object reads an object, calling field, if not nil, with each member.
func (r *jsonReader) object(field func(member)) bool {
	return r.items('}', func() bool {
		key := r.i
		if r.i == len(r.s) || r.s[r.i] != '"' || !r.str() {
			return false
		}
		keyEnd := r.i
		r.space()
		if !r.eat(':') {
			return false
		}
		r.space()
		value, start := r.i, r.outLen()
		if !r.value() {
			return false
		}
		if field != nil {
			field(member{r.s[key:keyEnd], r.s[value:r.i], start, r.outLen()})
		}
		return true
	})
}

// items reads the comma-separated items of the object or array whose
// bracket is at r.i, up to close.
func (r *jsonReader) items(close byte, item func() bool) bool {
	r.i++
	if r.depth++; r.depth > maxJSONDepth {
		return false
	}
	r.space()
	for n := 0; !r.eat(close); n++ {
		if n > 0 && !r.eat(',') {
			return false
		}
		r.space()
		if !item() {
			return false
		}
		r.space()
	}
	r.depth--
	return true
}

// str reads a string.
func (r *jsonReader) str() bool {
	s, i := r.s, r.i+1 // locals, for a tight loop over the characters
	for {
		for i < len(s) && inString[s[i]] {
			i++
		}
		r.i = i
		switch {
		case i == len(s):
			return false
		case s[i] == '"':
			r.i++
			return true
		case s[i] != '\\' || !r.escape():
			return false // a control character, or a bad escape
		}
		i = r.i
	}
}

// escape reads a backslash escape.
func (r *jsonReader) escape() bool {
	r.i += 2
	if r.i > len(r.s) {
		return false
	}
	switch r.s[r.i-1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		for range 4 {
			if r.i == len(r.s) || !isHex(r.s[r.i]) {
				return false
			}
			r.i++
		}
		return true
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (r *jsonReader) number() bool {
	r.eat('-')
	if !r.eat('0') && !r.digits() {
		return false
	}
	if r.eat('.') && !r.digits() {
		return false
	}
	if r.eat('e') || r.eat('E') {
		_ = r.eat('+') || r.eat('-')
		return r.digits()
	}
	return true
}

// digits reads one digit or more.
func (r *jsonReader) digits() bool {
	start := r.i
	for r.i < len(r.s) && '0' <= r.s[r.i] && r.s[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

func (r *cursor) space() {
	for r.i < len(r.s) && isSpace(r.s[r.i]) {
		r.i++
	}
}

// eat reads c if it comes next.
func (r *cursor) eat(c byte) bool {
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		return true
	}
	return false
}

// space skips spaces and, when compacting, leaves them out of out.
func (r *jsonReader) space() {
	start := r.i
	r.cursor.space()
	if r.compact && r.i > start {
		r.out = append(r.out, r.s[r.from:start]...)
		r.from = r.i
	}
}

// outLen returns the length out will have once all that is read is in it.
func (r *jsonReader) outLen() int {
	return len(r.out) + r.i - r.from
}

// flush copies to out what is read and not yet in it.
func (r *jsonReader) flush() {
	r.out = append(r.out, r.s[r.from:r.i]...)
	r.from = r.i
}

// appendCompact appends the valid JSON value s without the spaces between
// its tokens.
func appendCompact(dst []byte, s string) []byte {
	r := jsonReader{cursor: cursor{s: s}, compact: true, out: dst}
	r.value()
	r.flush()
	return r.out
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
