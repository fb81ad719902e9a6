package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// schema is the part of a JSON Schema grading reads: the types, the
// properties and which are required, an array's items.
type schema struct {
	Type       types              `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	// Items is kept raw: a schema of an older draft may give a list.
	Items json.RawMessage `json:"items"`
	// AdditionalProperties is kept raw: false, true or a schema.
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
}

// IsParameter says whether a tool whose parameters schema is schema takes
// an argument of that name, by the rule grading applies; true when the
// schema cannot be read.
func IsParameter(schema json.RawMessage, name string) bool {
	s := readSchema(schema)
	return s == nil || s.takes(name)
}

// takes says whether an argument of that name is one of the schema's
// parameters. As BFCL's checker, a name not among the properties is not,
// unless the schema says other names are allowed (additionalProperties
// true or a schema) or gives no properties at all.
func (s *schema) takes(name string) bool {
	if _, ok := s.Properties[name]; ok {
		return true
	}
	if extra := string(bytes.TrimSpace(s.AdditionalProperties)); extra != "" {
		return extra != "false"
	}
	return s.Properties == nil
}

// types is a schema's "type": one name or a list of them.
type types []string

func (t *types) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = types{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

// schemas reads each tool's parameters schema; one that cannot be read
// is left out, and its calls are checked against their expectation alone.
func schemas(tools map[string]json.RawMessage) map[string]*schema {
	out := make(map[string]*schema, len(tools))
	for name, raw := range tools {
		if s := readSchema(raw); s != nil {
			out[name] = s
		}
	}
	return out
}

func readSchema(raw json.RawMessage) *schema {
	var s schema
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// typeProblem says how value is not of the type param gives, "" when it
// is, or when param gives none. As BFCL's type_checker: a value of the
// same JSON type as the case's first expected literal passes too.
func typeProblem(param *schema, value any, want Value) string {
	if param == nil || len(param.Type) == 0 {
		return ""
	}
	got := kind(value)
	if !param.Type.accept(got) {
		if expected, ok := want.firstLiteral(); ok && kind(expected) == got {
			return ""
		}
		return fmt.Sprintf("want %s, got %s %s", strings.Join(param.Type, " or "), article(got), show(value))
	}
	items := readSchema(param.Items)
	if array, ok := value.([]any); ok && items != nil {
		return itemsProblem(items, array, want)
	}
	return ""
}

// itemsProblem checks an array's items against the schema's items type
// as BFCL's nested type check does: the items pass when, for one of the
// expected values, each is of the type or of that value's first item's
// type (the variable rule, one level down); an expected value that is no
// array lets them pass. With no expected value, each must be of the type.
func itemsProblem(items *schema, array []any, want Value) string {
	if len(want.OneOf) == 0 {
		return itemProblem(items, array, Value{})
	}
	first := ""
	for _, alternative := range want.OneOf {
		expected, isArray := alternative.Literal.([]any)
		if !isArray || alternative.Fields != nil || alternative.Elements != nil {
			return ""
		}
		var like Value
		for _, e := range expected {
			like.OneOf = append(like.OneOf, Pattern{Literal: e})
		}
		problem := itemProblem(items, array, like)
		if problem == "" {
			return ""
		}
		if first == "" {
			first = problem
		}
	}
	return first
}

// itemProblem says how the first item not of the type is not.
func itemProblem(items *schema, array []any, like Value) string {
	for n, item := range array {
		if p := typeProblem(items, item, like); p != "" {
			return fmt.Sprintf("item %d: %s", n+1, p)
		}
	}
	return ""
}

// accept says whether a value of JSON kind got is of one of the types. A
// whole number is a number too (BFCL lets an int stand for a float), but
// a number with a fraction is no integer, and a boolean is neither.
func (t types) accept(got string) bool {
	for _, name := range t {
		if name == got || name == "number" && got == "integer" {
			return true
		}
	}
	return false
}

// kind names the JSON Schema type of a decoded JSON value; a number is an
// integer when written without a fraction or an exponent.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "number"
		}
		return "integer"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case int:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
