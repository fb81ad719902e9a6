package retrieve

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolscope/toolscope/tools"
)

// document is what the retrievers read of one tool: its name split into
// words, its description, and its parameters' names and descriptions, in
// the order the schema writes them.
type document struct {
	tool   tools.Tool
	schema json.RawMessage // as the tool gave it, to tell when it changes
	name   string
	params string // parameter names and descriptions, one line each
	text   string // everything above as one text, for an embedder
	hash   [sha256.Size]byte
}

func newDocument(t tools.Tool) document {
	d := document{tool: t, schema: t.Parameters(), name: strings.Join(words(t.Name()), " ")}
	var b strings.Builder
	props := schemaProperties(t.Parameters())
	for _, name := range tools.PropertyOrder(t.Parameters()) {
		b.WriteString(strings.Join(words(name), " "))
		if desc := props[name].Description; desc != "" {
			b.WriteString(": " + desc)
		}
		b.WriteString("\n")
	}
	d.params = b.String()
	d.text = d.name + "\n" + t.Description() + "\n" + d.params
	d.hash = sha256.Sum256([]byte(d.text))
	return d
}

// sameTool says whether t reads as d's tool does, so that d can serve it
// without reading its schema again: what makes a list_changed of a few
// tools among thousands cheap.
func (d *document) sameTool(t tools.Tool) bool {
	return d.tool.Name() == t.Name() && d.tool.Description() == t.Description() && bytes.Equal(d.schema, t.Parameters())
}

// words splits s where a person reading an identifier would: at anything
// that is not a letter or a digit (so at "_" and "-"), and inside
// camelCase, keeping acronyms whole ("getHTTPStatus" → get, http, status).
// The words are lower-cased.
func words(s string) []string {
	var out []string
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(s[start:end]))
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start >= 0 && camelBoundary(prev, r, s[i+utf8.RuneLen(r):]) {
			flush(i)
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(s))
	return out
}

// camelBoundary says whether a new word starts at r, after prev and
// before rest: "aB" splits, and so does "HTTPServer" before its "S".
func camelBoundary(prev, r rune, rest string) bool {
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsUpper(prev) && unicode.IsLower(next)
}

// terms are the index terms of s: its words without the commonest
// English ones, each reduced to a rough stem so that "messages",
// "message" and "messaging" meet.
func terms(s string) []string {
	ws := words(s)
	out := ws[:0]
	for _, w := range ws {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips the English suffixes that tool texts and requests vary in
// most. It is deliberately cruder than Porter's: it only has to map the
// forms of one word to one term, for queries and tools alike.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by can do does for from
		has have how i if in into is it its me my of on or our please the their
		them then there these this to was we what when where which who will with
		you your`) {
		stopWords[w] = true
	}
}

type property struct {
	Description string `json:"description"`
}

// schemaProperties reads the top-level properties of a JSON Schema; an
// unreadable schema has none, which costs the tool its parameter words
// only.
func schemaProperties(schema []byte) map[string]property {
	var s struct {
		Properties map[string]property `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	return s.Properties
}
