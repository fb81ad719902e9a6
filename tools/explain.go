package tools

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// An explainer turns the validator's error tree into sentences a model
// can act on. Each sentence names the argument by a path such as "to",
// "attendees[1]" or "address.city", and says what was expected.
type explainer struct {
	tool   string
	schema json.RawMessage // the tool's schema as written
	args   any             // the decoded arguments
}

// problem is one thing wrong with the arguments. Path is where: the
// instance location, plus the name of a missing or unexpected argument.
type problem struct {
	path []string
	text string
}

func (x *explainer) explain(e *jsonschema.ValidationError) []problem {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		var ps []problem
		for _, c := range e.Causes {
			ps = append(ps, x.explain(c)...)
		}
		return ps
	case *kind.AnyOf:
		return []problem{x.alternatives(e)}
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			return []problem{x.alternatives(e)}
		}
		return []problem{x.at(loc, "must match exactly one of its allowed forms, but matches several")}
	case *kind.Required:
		return x.missing(loc, k.Missing, "")
	case *kind.DependentRequired:
		return x.missing(loc, k.Missing, k.Prop)
	case *kind.Dependency:
		return x.missing(loc, k.Missing, k.Prop)
	case *kind.AdditionalProperties:
		takes := x.takes(e)
		ps := make([]problem, len(k.Properties))
		for i, name := range k.Properties {
			path := child(loc, name)
			ps[i] = problem{path, fmt.Sprintf("unexpected argument %q (%s)", x.name(path), takes)}
		}
		return ps
	default:
		return []problem{x.at(loc, x.predicate(e))}
	}
}

// at makes a problem whose sentence is about the value at loc.
func (x *explainer) at(loc []string, predicate string) problem {
	subject := "arguments"
	if len(loc) > 0 {
		subject = fmt.Sprintf("argument %q", x.name(loc))
	}
	return problem{loc, subject + " " + predicate}
}

// predicate says what a single value got wrong, e.g. "must be a string, got number".
func (x *explainer) predicate(e *jsonschema.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return mustBe(k.Want, k.Got)
	case *kind.Pattern:
		s := "must match the pattern " + k.Want
		if d := x.description(e.SchemaURL); d != "" {
			s += " (" + d + ")"
		}
		return s + ", got " + show(k.Got)
	case *kind.Format:
		return fmt.Sprintf("must be a valid %s, got %s (%v)", k.Want, show(k.Got), k.Err)
	case *kind.Enum:
		if len(k.Want) == 1 {
			return "must be " + show(k.Want[0]) + ", got " + show(k.Got)
		}
		want := make([]string, len(k.Want))
		for i, v := range k.Want {
			want[i] = show(v)
		}
		return "must be one of " + strings.Join(want, ", ") + ", got " + show(k.Got)
	case *kind.Const:
		return "must be " + show(k.Want) + ", got " + show(k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s, got %d", count(k.Want, "item", "items"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s, got %d", count(k.Want, "item", "items"), k.Got)
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %s long, got %d", count(k.Want, "character", "characters"), k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %s long, got %d", count(k.Want, "character", "characters"), k.Got)
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s, got %d", count(k.Want, "property", "properties"), k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s, got %d", count(k.Want, "property", "properties"), k.Got)
	case *kind.Minimum:
		return "must be at least " + number(k.Want) + ", got " + number(k.Got)
	case *kind.Maximum:
		return "must be at most " + number(k.Want) + ", got " + number(k.Got)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + number(k.Want) + ", got " + number(k.Got)
	case *kind.ExclusiveMaximum:
		return "must be less than " + number(k.Want) + ", got " + number(k.Got)
	case *kind.MultipleOf:
		return "must be a multiple of " + number(k.Want) + ", got " + number(k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("must not repeat items, but items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.FalseSchema:
		return "is not allowed"
	case *kind.Not:
		return `must not match the schema under "not"`
	}
	// Rare keywords (contains, propertyNames, …): point at the rule.
	if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
		return fmt.Sprintf("does not satisfy the schema's %q rule", strings.Join(kw, "/"))
	}
	return "does not satisfy its schema"
}

// missing explains required arguments that are absent; when is set, they
// are required only because that argument is present.
func (x *explainer) missing(loc, names []string, when string) []problem {
	ps := make([]problem, len(names))
	for i, name := range names {
		path := child(loc, name)
		text := fmt.Sprintf("missing required argument %q", x.name(path))
		if when != "" {
			text += fmt.Sprintf(" (needed when %q is given)", x.name(child(loc, when)))
		}
		ps[i] = problem{path, text}
	}
	return ps
}

// takes lists the properties an object accepts, in the schema's order,
// for example "send_mail takes: to, subject, body".
func (x *explainer) takes(e *jsonschema.ValidationError) string {
	owner := x.tool
	if len(e.InstanceLocation) > 0 {
		owner = x.name(e.InstanceLocation)
	}
	names := PropertyOrder(x.subschema(e.SchemaURL))
	if len(names) == 0 {
		return owner + " takes no arguments"
	}
	return owner + " takes: " + strings.Join(names, ", ")
}

// alternatives explains an anyOf or oneOf that no branch accepted.
func (x *explainer) alternatives(e *jsonschema.ValidationError) problem {
	loc := e.InstanceLocation
	if want, got, ok := typeAlternatives(e); ok {
		// The usual case, a nullable value, reads best as one type error.
		return x.at(loc, mustBe(want, got))
	}
	branches := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		var texts []string
		for _, p := range x.explain(c) {
			texts = append(texts, p.text)
		}
		branches[i] = strings.Join(texts, ", ")
	}
	return x.at(loc, "must match one of its allowed forms: "+strings.Join(branches, ", or "))
}

// typeAlternatives reports whether every branch of e failed only on the
// type of the value itself, and if so which types would have done.
func typeAlternatives(e *jsonschema.ValidationError) (want []string, got string, ok bool) {
	for _, c := range e.Causes {
		t, isType := c.ErrorKind.(*kind.Type)
		if !isType || !slices.Equal(c.InstanceLocation, e.InstanceLocation) {
			return nil, "", false
		}
		want, got = append(want, t.Want...), t.Got
	}
	return want, got, len(want) > 0
}

// name renders an instance location as a path: array indices in brackets,
// object keys after dots. The arguments tell the two apart, since the
// location spells both as strings.
func (x *explainer) name(loc []string) string {
	var b strings.Builder
	v := x.args
	for _, tok := range loc {
		if arr, ok := v.([]any); ok {
			b.WriteString("[" + tok + "]")
			v = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(arr) {
				v = arr[i]
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
		obj, _ := v.(map[string]any)
		v = obj[tok]
	}
	return b.String()
}

// subschema finds the part of the tool's schema, as written, that a
// validation error points at. It returns nil when it cannot (a schema that
// sets its own $id, say), and the explanation then just says less.
func (x *explainer) subschema(location string) json.RawMessage {
	base, fragment, _ := strings.Cut(location, "#")
	pointer, err := url.PathUnescape(fragment)
	if base != schemaURL || err != nil {
		return nil
	}
	raw := x.schema
	if pointer != "" {
		unescape := strings.NewReplacer("~1", "/", "~0", "~")
		for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
			if raw = member(raw, unescape.Replace(tok)); raw == nil {
				return nil
			}
		}
	}
	return raw
}

// description returns the description of the schema at location, without
// a final period so that it reads well inside parentheses.
func (x *explainer) description(location string) string {
	var d string
	if json.Unmarshal(member(x.subschema(location), "description"), &d) != nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSpace(d), ".")
}

// member returns the value under tok in a JSON object or array, or nil.
func member(raw json.RawMessage, tok string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		return obj[tok]
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(arr) {
			return arr[i]
		}
	}
	return nil
}

func child(loc []string, name string) []string {
	return append(slices.Clip(loc), name)
}

// mustBe phrases a type error: "must be a string or null, got number".
func mustBe(want []string, got string) string {
	phrases := make([]string, len(want))
	for i, w := range want {
		switch w {
		case "null":
			phrases[i] = "null"
		case "object":
			phrases[i] = "a JSON object"
		case "array", "integer":
			phrases[i] = "an " + w
		default:
			phrases[i] = "a " + w
		}
	}
	return "must be " + strings.Join(phrases, " or ") + ", got " + got
}

// show renders a value as JSON, shortened: the model wrote it and does not
// need all of it back.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const limit = 60
	if r := []rune(string(b)); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return string(b)
}

func number(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
