package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Small models improvise: they call multiply(x=6, y=7) or
// multiply(number1="6", number2="7") as often as multiply(a=6, b=7). The
// tools here take all of those. Each parameter has a name, which the
// schema advertises, and the aliases models use instead; a value missing
// under every name is taken from the arguments nobody claimed, in the order
// the model wrote them. Numbers may come as strings.

// param is one argument of a tool.
type param struct {
	name     string
	about    string   // for the schema, and for errors
	aliases  []string // normalised as by normalise
	number   bool     // a number, else a string
	optional bool
}

// also returns p with more aliases.
func (p param) also(aliases ...string) param {
	p.aliases = append(append([]string(nil), p.aliases...), aliases...)
	return p
}

// normalise makes "Number_1", "number-1" and "number1" one name.
func normalise(key string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(key))
}

func (p param) answersTo(key string) bool {
	key = normalise(key)
	if key == normalise(p.name) {
		return true
	}
	for _, a := range p.aliases {
		if key == a {
			return true
		}
	}
	return false
}

// tool is one tool of a server: what the model reads, and what it does.
type tool struct {
	name    string
	summary string // what it does, one sentence
	example string // a call and its result, e.g. "multiply(a=6, b=7) returns 42"
	params  []param
	run     func(args *arguments) (string, error)
}

func (t tool) description() string { return t.summary + " Example: " + t.example }

// schema advertises the parameters' own names. None is required and
// strings are allowed for numbers, so that toolscope's schema check, and
// any other client's, lets the improvised calls through to the tool.
func (t tool) schema() map[string]any {
	props := make(map[string]any, len(t.params))
	for _, p := range t.params {
		typ := any("string")
		if p.number {
			typ = []string{"number", "string"}
		}
		props[p.name] = map[string]any{"type": typ, "description": p.about}
	}
	return map[string]any{"type": "object", "properties": props}
}

func addTools(s *mcp.Server, tools ...tool) {
	for _, t := range tools {
		s.AddTool(&mcp.Tool{Name: t.name, Description: t.description(), InputSchema: t.schema()},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				args, err := parseArguments(t, req.Params.Arguments)
				var text string
				if err == nil {
					text, err = t.run(args)
				}
				if err != nil {
					// A tool error, for the model to read and correct, rather
					// than a protocol error.
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			})
	}
}

// arguments are a call's arguments in the order the model wrote them.
type arguments struct {
	tool   tool
	raw    json.RawMessage
	values []value
}

// value is one argument, or one element of an argument that is an array.
type value struct {
	key     string
	raw     json.RawMessage
	claimed bool
}

func parseArguments(t tool, raw json.RawMessage) (*arguments, error) {
	args := &arguments{tool: t, raw: raw}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("arguments must be a JSON object; for example %s", t.example)
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		// {"numbers": [6, 7]} is another way to write two numbers.
		var elems []json.RawMessage
		if v[0] == '[' && json.Unmarshal(v, &elems) == nil {
			for i, e := range elems {
				args.values = append(args.values, value{key: fmt.Sprintf("%s[%d]", key, i), raw: e})
			}
			continue
		}
		args.values = append(args.values, value{key: key.(string), raw: v})
	}
	return args, nil
}

// numbers finds a number for each param.
func (a *arguments) numbers(params ...param) ([]float64, error) {
	return resolve(a, params, "a number", parseNumber)
}

// text finds a string for each param, one that accept takes; want says
// which strings those are.
func (a *arguments) text(want string, accept func(string) bool, params ...param) ([]string, error) {
	return resolve(a, params, want, func(raw json.RawMessage) (string, bool) {
		var s string
		return s, json.Unmarshal(raw, &s) == nil && accept(s)
	})
}

// resolve finds a value for each param: first under its name or an alias,
// then, for those still missing, among the arguments nobody claimed, in
// order. An optional param that is missing gets the zero value.
func resolve[T any](a *arguments, params []param, want string, parse func(json.RawMessage) (T, bool)) ([]T, error) {
	found := make([]T, len(params))
	have := make([]bool, len(params))
	for i, p := range params {
		v := a.first(func(v *value) bool { return p.answersTo(v.key) })
		if v == nil {
			continue
		}
		x, ok := parse(v.raw)
		if !ok {
			return nil, fmt.Errorf("%s: argument %q must be %s, got %s", a.tool.name, v.key, want, v.raw)
		}
		found[i], have[i] = x, true
	}
	var missing []string
	for i, p := range params {
		if have[i] {
			continue
		}
		if v := a.first(func(v *value) bool { _, ok := parse(v.raw); return ok }); v != nil {
			found[i], _ = parse(v.raw)
		} else if !p.optional {
			missing = append(missing, fmt.Sprintf("%q (%s)", p.name, p.about))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s needs %s, but the arguments were %s; for example %s",
			a.tool.name, strings.Join(missing, " and "), a.shown(), a.tool.example)
	}
	return found, nil
}

// first claims the first unclaimed argument that match takes.
func (a *arguments) first(match func(*value) bool) *value {
	for i := range a.values {
		if v := &a.values[i]; !v.claimed && match(v) {
			v.claimed = true
			return v
		}
	}
	return nil
}

func (a *arguments) shown() string {
	s := string(bytes.TrimSpace(a.raw))
	if s == "" {
		return "empty"
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// parseNumber reads a JSON number, or a string holding one.
func parseNumber(raw json.RawMessage) (float64, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	var x float64
	switch v := v.(type) {
	case float64:
		x = v
	case string:
		var err error
		if x, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return x, !math.IsNaN(x) && !math.IsInf(x, 0)
}

// formatNumber writes x with at most digits significant digits, which
// hides binary noise such as 0.1 + 0.2 = 0.30000000000000004, and without
// an exponent unless x is huge or tiny.
func formatNumber(x float64, digits int) string {
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	if x == 0 {
		return "0" // and not "-0"
	}
	if abs := math.Abs(x); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
