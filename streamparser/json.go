package streamparser

// jsonScanner follows just enough JSON to tell whether a byte stands
// inside a string, where a closing tag is only text.
type jsonScanner struct {
	inString, escaped bool
}

// step consumes c and reports whether it stands outside every string.
func (j *jsonScanner) step(c byte) bool {
	if j.inString {
		switch {
		case j.escaped:
			j.escaped = false
		case c == '\\':
			j.escaped = true
		case c == '"':
			j.inString = false
		}
		return false
	}
	if c == '"' {
		j.inString = true
		return false
	}
	return true
}
