package suite

import (
	"regexp"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/tools"
	"gopkg.in/yaml.v3"
)

func (r *reader) expect(n *yaml.Node, path string, offered Tools) grade.Expect {
	var e grade.Expect
	f := r.fields(n, path, "calls", "order", "no_call", "forbidden", "answer_contains")
	if f == nil {
		return e
	}
	if len(f) == 0 || len(f) == 1 && f["order"] != nil {
		r.fail(n, path, "has no expectation: give calls, no_call, forbidden or answer_contains")
	}
	if calls := f["calls"]; calls != nil {
		r.each(calls, join(path, "calls"), func(item *yaml.Node, path string) {
			e.Calls = append(e.Calls, r.call(item, path, offered))
		})
		if len(calls.Content) == 0 {
			r.fail(calls, join(path, "calls"), "is empty: for a case where the model must not call, write no_call: true")
		}
	}
	e.Order = grade.OrderAny
	if order := f["order"]; order != nil {
		switch o, ok := r.text(order, join(path, "order")); {
		case o == string(grade.OrderAny) || o == string(grade.OrderStrict):
			e.Order = grade.Order(o)
		case ok:
			r.fail(order, join(path, "order"), "%q is not an order: use any or strict", o)
		}
	}
	if no := f["no_call"]; no != nil {
		e.NoCall = r.isTrue(no, join(path, "no_call"))
		if f["calls"] != nil {
			r.fail(no, join(path, "no_call"), "a case wants calls or no call, not both")
		}
	}
	if forbidden := f["forbidden"]; forbidden != nil {
		r.each(forbidden, join(path, "forbidden"), func(item *yaml.Node, path string) {
			name, ok := r.text(item, path)
			if ok && r.offers(offered, item, path, name) {
				if slices.ContainsFunc(e.Calls, func(c grade.ExpectedCall) bool { return c.Name == name }) {
					r.fail(item, path, "%s is both expected and forbidden", name)
				}
				e.Forbidden = append(e.Forbidden, name)
			}
		})
	}
	if answer := f["answer_contains"]; answer != nil {
		e.AnswerContains = r.texts(answer, join(path, "answer_contains"))
	}
	return e
}

// offers says whether the case offers a tool of that name, or may (its
// MCP servers' tools are known only when they run); when not, it fails.
func (r *reader) offers(offered Tools, n *yaml.Node, path, name string) bool {
	if _, ok := offered.Schemas()[name]; ok || len(offered.MCP) > 0 {
		return true
	}
	r.fail(n, path, "no tool offered is named %q: %s", name, offered.offered())
	return false
}

func (r *reader) call(n *yaml.Node, path string, offered Tools) grade.ExpectedCall {
	var c grade.ExpectedCall
	f := r.fields(n, path, "name", "args")
	if f == nil {
		return c
	}
	name := f["name"]
	if name == nil {
		r.fail(n, join(path, "name"), "an expected call needs the tool's name")
		return c
	}
	var ok bool
	if c.Name, ok = r.text(name, join(path, "name")); ok {
		ok = r.offers(offered, name, join(path, "name"), c.Name)
	}
	args := f["args"]
	if args == nil {
		return c
	}
	schema, known := offered.Schemas()[c.Name]
	c.Args = map[string]grade.Value{}
	if args.Kind != yaml.MappingNode {
		r.fail(args, join(path, "args"), "must be a mapping of arguments by name, not %s", describe(args))
		return c
	}
	for i := 0; i+1 < len(args.Content); i += 2 {
		key, value := args.Content[i], resolve(args.Content[i+1])
		argPath := join(join(path, "args"), key.Value)
		if ok && known && !grade.IsParameter(schema, key.Value) {
			r.fail(key, argPath, "%s has no parameter %q: its parameters are %s", c.Name, key.Value, strings.Join(tools.PropertyOrder(schema), ", "))
		}
		c.Args[key.Value] = r.value(value, argPath)
	}
	return c
}

// matchers are the fields of an argument written as a mapping: one of
// the first six says what the value may be, the last three how.
var matchers = []string{"exact", "one_of", "regex", "number", "any", "fields", "tolerance", "optional", "normalize"}

// value reads what an argument may be: a value written as itself (a
// string, number, boolean, null or list) is the one allowed; a mapping
// says how to match (an object value is written {exact: {…}}).
func (r *reader) value(n *yaml.Node, path string) grade.Value {
	if n.Kind != yaml.MappingNode {
		lit, _ := r.literal(n, path)
		return grade.Exactly(lit)
	}
	f := r.fields(n, path, matchers...)
	var v grade.Value
	if f == nil {
		return v
	}
	var kinds []string
	for _, k := range matchers[:6] {
		if f[k] != nil {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		r.fail(n, path, "give one of %s (an object value is written {exact: {…}})", strings.Join(matchers[:6], ", "))
		return v
	}
	switch k, m := kinds[0], f[kinds[0]]; k {
	case "exact":
		v = grade.Exactly(nil)
		v.OneOf[0].Literal, _ = r.literal(m, join(path, k))
	case "one_of":
		r.each(m, join(path, k), func(item *yaml.Node, path string) {
			lit, _ := r.literal(item, path)
			v.OneOf = append(v.OneOf, grade.Pattern{Literal: lit})
		})
		if m.Kind == yaml.SequenceNode && len(m.Content) == 0 {
			r.fail(m, join(path, k), "is empty: list the values allowed")
		}
	case "regex":
		if text, ok := r.text(m, join(path, k)); ok {
			re, err := regexp.Compile(text)
			if err != nil {
				r.fail(m, join(path, k), "does not compile: %v", err)
			}
			v.Regex = re
		}
	case "number":
		if near, ok := r.number(m, join(path, k)); ok {
			v.Near = &near
		}
	case "any":
		v.Any = r.isTrue(m, join(path, k))
	case "fields":
		p := grade.Pattern{Fields: map[string]grade.Value{}}
		if m.Kind != yaml.MappingNode {
			r.fail(m, join(path, k), "must be a mapping of fields by name, not %s", describe(m))
		}
		for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
			key := m.Content[i]
			p.Fields[key.Value] = r.value(resolve(m.Content[i+1]), join(join(path, k), key.Value))
		}
		v.OneOf = []grade.Pattern{p}
	}
	if t := f["tolerance"]; t != nil {
		if v.Near == nil {
			r.fail(t, join(path, "tolerance"), "goes with number: {number: 2.5, tolerance: 0.1}")
		} else if tol, ok := r.number(t, join(path, "tolerance")); ok && tol < 0 {
			r.fail(t, join(path, "tolerance"), "must not be negative")
		} else {
			v.Tolerance = tol
		}
	}
	if o := f["optional"]; o != nil {
		v.Optional = r.flag(o, join(path, "optional"))
	}
	if norm := f["normalize"]; norm != nil {
		v.Normalize = r.flag(norm, join(path, "normalize"))
	}
	return v
}
