package streamparser

// nest follows a call's strings and brackets, so that a closing tag, a
// bracket or a comma inside a string is only text. JSON strings take
// double quotes; Python ones either quote, and both read backslash escapes.
// Neither may hold a raw newline, so a newline ends a string that a stray
// quote opened: one bad quote spoils its call, not the rest of the reply.
type nest struct {
	depth   int
	quote   byte // the quote of the string being read; 0 outside strings
	escaped bool // the byte before was a backslash in a string
	lang    lang
}

type lang uint8

const (
	jsonLang lang = iota
	pythonLang
	// xmlLang has neither strings nor brackets: only the closing tag
	// ends a call, as in vLLM's Qwen3-Coder parser.
	xmlLang
)

var (
	opensString = [...][256]bool{
		jsonLang:   {'"': true},
		pythonLang: {'"': true, '\'': true},
		xmlLang:    {},
	}
	bracketDepth = [...][256]int8{
		jsonLang:   {'{': 1, '[': 1, '}': -1, ']': -1},
		pythonLang: {'{': 1, '[': 1, '(': 1, '}': -1, ']': -1, ')': -1},
		xmlLang:    {},
	}
)

// scan reads s up to the first byte outside strings that stop marks, and
// returns its index, or len(s). Brackets must be stops: scan does not
// count them, the caller does (with bracket), once it has seen them.
func (n *nest) scan(s string, stop *byteSet) int {
	quote, escaped := n.quote, n.escaped // locals, for a tight loop
	opens := &opensString[n.lang]
	i := 0
	for ; i < len(s); i++ {
		if quote != 0 && !escaped {
			// Most of a call is plain characters in strings.
			for i < len(s) && s[i] != quote && s[i] != '\\' && s[i] != '\n' {
				i++
			}
			if i == len(s) {
				break
			}
		}
		c := s[i]
		switch {
		case quote == 0 && stop[c]:
			n.quote, n.escaped = quote, escaped
			return i
		case quote == 0:
			if opens[c] {
				quote = c
			}
		case c == '\n':
			quote, escaped = 0, false
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == quote:
			quote = 0
		}
	}
	n.quote, n.escaped = quote, escaped
	return i
}

// bracket counts c, a byte outside strings, if it is a bracket, and
// returns the depth after it.
func (n *nest) bracket(c byte) int {
	n.depth += int(bracketDepth[n.lang][c])
	return n.depth
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

// isIdent reports whether c can be part of a tool's name.
func isIdent(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '.' || c == '-'
}

// blankPrefix returns how many bytes at the start of s are spaces or ';',
// which may stand between Llama 3 calls.
func blankPrefix(s string) int {
	n := 0
	for n < len(s) && (isSpace(s[n]) || s[n] == ';') {
		n++
	}
	return n
}
