package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// reader walks a suite's YAML nodes, which keep their line numbers, and
// collects every problem it finds rather than stopping at the first.
type reader struct {
	file string
	errs []error
}

func (r *reader) fail(n *yaml.Node, field, format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Line: n.Line, Field: field, Problem: fmt.Sprintf(format, args...)})
}

// yamlLine reads the line out of a YAML syntax error: "yaml: line 3: …".
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblem matches the errors of yaml.v3's parser, as opposed to its
// scanner: it words their line counting from 0 (the scanner's from 1).
var parserProblem = regexp.MustCompile(`^(did not find expected|found duplicate %|found incompatible YAML|found undefined tag handle)`)

// document returns the top node of data, or the syntax error as an *Error.
func document(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := &Error{File: file, Line: 1, Field: "(syntax)", Problem: strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Problem = m[2]
			if parserProblem.MatchString(e.Problem) {
				e.Line++
			}
		}
		return nil, e
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Line: 1, Field: "(file)", Problem: "is empty: a suite needs cases"}
	}
	return doc.Content[0], nil
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// join extends a field's path by a key.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fields returns a mapping's values by key, refusing a node that is not a
// mapping, keys not among known, and keys given twice.
func (r *reader) fields(n *yaml.Node, path string, known ...string) map[string]*yaml.Node {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		r.fail(n, orFile(path), "must be a mapping with the fields %s, not %s", strings.Join(known, ", "), describe(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], resolve(n.Content[i+1])
		switch _, twice := out[key.Value]; {
		case !slices.Contains(known, key.Value):
			r.fail(key, join(path, key.Value), "unknown field: use %s", strings.Join(known, ", "))
		case twice:
			r.fail(key, join(path, key.Value), "is given twice")
		default:
			out[key.Value] = value
		}
	}
	return out
}

func orFile(path string) string {
	if path == "" {
		return "(file)"
	}
	return path
}

// each calls fn with each item of a list, and its path.
func (r *reader) each(n *yaml.Node, path string, fn func(item *yaml.Node, path string)) {
	if n.Kind != yaml.SequenceNode {
		r.fail(n, path, "must be a list, not %s", describe(n))
		return
	}
	for i, item := range n.Content {
		fn(resolve(item), fmt.Sprintf("%s[%d]", path, i))
	}
}

func (r *reader) text(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		r.fail(n, path, "must be a string, not %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// texts reads a list of strings.
func (r *reader) texts(n *yaml.Node, path string) []string {
	var out []string
	r.each(n, path, func(item *yaml.Node, path string) {
		if s, ok := r.text(item, path); ok {
			out = append(out, s)
		}
	})
	return out
}

func (r *reader) whole(n *yaml.Node, path string, least, most int) (int, bool) {
	i, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil {
		r.fail(n, path, "must be a whole number, not %s", describe(n))
		return 0, false
	}
	if i < least || i > most {
		r.fail(n, path, "%d must be from %d to %d", i, least, most)
		return 0, false
	}
	return i, true
}

func (r *reader) number(n *yaml.Node, path string) (float64, bool) {
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || err != nil {
		r.fail(n, path, "must be a number, not %s", describe(n))
		return 0, false
	}
	return f, true
}

// isTrue reads a field that is true or absent, such as no_call: false
// would say nothing.
func (r *reader) isTrue(n *yaml.Node, path string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Value != "true" {
		r.fail(n, path, "must be true (or left out), not %s", describe(n))
		return false
	}
	return true
}

func (r *reader) flag(n *yaml.Node, path string) bool {
	b, err := strconv.ParseBool(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || err != nil {
		r.fail(n, path, "must be true or false, not %s", describe(n))
	}
	return b
}

// describe words what a node is, for "must be …, not …".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!str":
		return "the string " + strconv.Quote(n.Value)
	case "!!null":
		return "null"
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return n.Value
}

// toJSON is a node's value as JSON.
func toJSON(n *yaml.Node) (json.RawMessage, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("is not a JSON value: its mapping keys must be strings")
	}
	return b, nil
}

// literal is a node's value decoded as grading decodes a call's
// arguments, numbers as json.Number.
func (r *reader) literal(n *yaml.Node, path string) (any, bool) {
	raw, err := toJSON(n)
	if err != nil {
		r.fail(n, path, "%v", err)
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	return v, d.Decode(&v) == nil
}
