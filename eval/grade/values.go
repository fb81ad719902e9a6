package grade

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// allows says whether the argument's value v is one the Value allows.
func (want Value) allows(v any) bool {
	switch {
	case want.Any:
		return true
	case want.Regex != nil:
		s, ok := v.(string)
		return ok && want.Regex.MatchString(s)
	case want.Near != nil:
		n, ok := number(v)
		return ok && math.Abs(n-*want.Near) <= want.Tolerance
	}
	for _, p := range want.OneOf {
		if p.matches(v, want.Normalize) {
			return true
		}
	}
	return false
}

func (p Pattern) matches(v any, normalize bool) bool {
	switch {
	case p.Fields != nil:
		object, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for name, field := range object {
			if want, listed := p.Fields[name]; !listed || !want.allows(field) {
				return false
			}
		}
		for name, want := range p.Fields {
			if _, given := object[name]; !given && !want.Optional {
				return false
			}
		}
		return true
	case p.Elements != nil:
		array, ok := v.([]any)
		if !ok || len(array) != len(p.Elements) {
			return false
		}
		for i, element := range p.Elements {
			if !element.matches(array[i], normalize) {
				return false
			}
		}
		return true
	}
	return equal(p.Literal, v, normalize)
}

// equal compares two decoded JSON values: numbers by value (1 and 1.0 are
// equal, as in Python), strings exactly or, with normalize, as BFCL does.
func equal(a, b any, normalize bool) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		if normalize {
			return ok && standardize(a) == standardize(b)
		}
		return ok && a == b
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i], normalize) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !equal(v, w, normalize) {
				return false
			}
		}
		return true
	}
	return a == b // booleans and null
}

// number reads a decoded JSON number; false for anything else.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}

// unimportant are the characters BFCL's standardize_string drops, so that
// "April 1, 2024" and "april 1 2024" are one answer.
var unimportant = regexp.MustCompile(`[ ,./\-_*^]`)

// standardize is BFCL's standardize_string: without the unimportant
// characters, lower case, single quotes read as double.
func standardize(s string) string {
	return strings.ReplaceAll(strings.ToLower(unimportant.ReplaceAllString(s, "")), "'", `"`)
}

// firstLiteral is the first literal allowed that is not "", which BFCL
// writes for "optional": the value whose type BFCL's variable rule reads.
func (want Value) firstLiteral() (any, bool) {
	for _, p := range want.OneOf {
		if p.Fields == nil && p.Elements == nil && p.Literal != "" {
			return p.Literal, true
		}
	}
	return nil, false
}

// describe words what the Value allows, for a failure's message.
func (want Value) describe() string {
	switch {
	case want.Any:
		return "any value"
	case want.Regex != nil:
		return "a match of " + strconv.Quote(want.Regex.String())
	case want.Near != nil:
		return fmt.Sprintf("%v ± %v", *want.Near, want.Tolerance)
	}
	shown := make([]string, len(want.OneOf))
	for i, p := range want.OneOf {
		shown[i] = p.describe()
	}
	if len(shown) == 1 {
		return shown[0]
	}
	return "one of " + strings.Join(shown, ", ")
}

func (p Pattern) describe() string {
	switch {
	case p.Fields != nil:
		return "an object of the fields expected"
	case p.Elements != nil:
		return fmt.Sprintf("an array of the %d elements expected", len(p.Elements))
	}
	return show(p.Literal)
}
