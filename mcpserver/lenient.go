package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is an MCP server whose tools take the arguments small models
// improvise as well as those their schemas name. See the package
// documentation for why the tolerance sits in front of the SDK.
type server struct {
	*mcp.Server
	inputs map[string]*input // by tool name; written only while the server is built
}

func newServer(name, title string) *server {
	s := &server{
		Server: mcp.NewServer(&mcp.Implementation{Name: name, Title: title, Version: version}, nil),
		inputs: make(map[string]*input),
	}
	s.AddReceivingMiddleware(s.tolerate)
	return s
}

// addTool is [mcp.AddTool], which infers the tool's schema from In and
// validates every call against it, plus the reading of In's aliases (its
// fields' "aka" tags) that tolerate does before that validation.
func addTool[In, Out any](s *server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s.Server, t, h)
	s.inputs[t.Name] = inputFor(reflect.TypeFor[In](), t)
}

// tolerate rewrites the arguments of a call to one of s's tools into the
// form its schema names, so that the SDK's validation, which comes before
// any decoding a handler could do, lets the improvised call through. A
// call that cannot be understood is answered with a tool error saying
// what the tool needs.
func (s *server) tolerate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		in, ok := s.inputs[call.Params.Name]
		if !ok {
			return next(ctx, method, req) // for the SDK to refuse
		}
		args, err := in.canonical(call.Params.Arguments)
		if err != nil {
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		// A copy, so that nothing else holding the request sees it change.
		params := *call.Params
		params.Arguments = args
		rewritten := *call
		rewritten.Params = &params
		return next(ctx, method, &rewritten)
	}
}

// input is what tolerate knows of a tool's input type.
type input struct {
	tool    string
	example string // a call and its result, from the tool's description
	params  []param
}

// param is one field of an input type.
type param struct {
	name     string   // its JSON name, which the schema advertises
	about    string   // its description, for errors
	aliases  []string // normalised as by normalise
	kind     string   // the JSON type the schema gives it: number, integer or string
	optional bool
}

// inputFor reads an input type's fields. Like [mcp.AddTool], it panics
// on a type it cannot serve, since that is a mistake in this package.
func inputFor(t reflect.Type, tool *mcp.Tool) *input {
	_, example, _ := strings.Cut(tool.Description, " Example: ")
	in := &input{tool: tool.Name, example: example}
	for _, f := range reflect.VisibleFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := param{name: name, about: f.Tag.Get("jsonschema"), optional: strings.Contains(opts, "omit")}
		for _, a := range strings.Split(f.Tag.Get("aka"), ",") {
			if a != "" {
				p.aliases = append(p.aliases, normalise(a))
			}
		}
		switch f.Type.Kind() {
		case reflect.Float64:
			p.kind = "number"
		case reflect.Int:
			p.kind = "integer"
		case reflect.String:
			p.kind = "string"
		default:
			panic(fmt.Sprintf("mcpserver: tool %s: field %s is a %s; only float64, int and string are read leniently", tool.Name, f.Name, f.Type))
		}
		in.params = append(in.params, p)
	}
	return in
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

// parse reads a value for p: a JSON value of p's kind, or, for a number,
// a string holding one.
func (p param) parse(raw json.RawMessage) (any, bool) {
	switch p.kind {
	case "string":
		var s string
		return s, json.Unmarshal(raw, &s) == nil
	case "integer":
		x, ok := parseNumber(raw)
		if !ok || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return nil, false
		}
		return int64(x), true
	}
	return parseNumber(raw)
}

func (p param) want() string {
	switch p.kind {
	case "string":
		return "a string"
	case "integer":
		return "a whole number"
	}
	return "a number"
}

// canonical rewrites arguments into an object under the schema's names.
// Each param takes the value under its name or an alias; one still
// missing takes the first argument nobody claimed that parses as its
// kind, in the order the model wrote them. Arguments no param takes are
// dropped; an optional param left without a value is left out.
func (in *input) canonical(raw json.RawMessage) (json.RawMessage, error) {
	args, err := in.read(raw)
	if err != nil {
		return nil, err
	}
	found := make(map[string]any, len(in.params))
	for _, p := range in.params {
		v := args.first(func(v *value) bool { return p.answersTo(v.key) })
		if v == nil {
			continue
		}
		x, ok := p.parse(v.raw)
		if !ok {
			return nil, fmt.Errorf("%s: argument %q must be %s, got %s", in.tool, v.key, p.want(), v.raw)
		}
		found[p.name] = x
	}
	var missing []string
	for _, p := range in.params {
		if _, ok := found[p.name]; ok {
			continue
		}
		if v := args.first(func(v *value) bool { _, ok := p.parse(v.raw); return ok }); v != nil {
			found[p.name], _ = p.parse(v.raw)
		} else if !p.optional {
			missing = append(missing, fmt.Sprintf("%q (%s)", p.name, p.about))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s needs %s, but the arguments were %s%s",
			in.tool, strings.Join(missing, " and "), shown(raw), in.forExample())
	}
	return json.Marshal(found)
}

func (in *input) forExample() string {
	if in.example == "" {
		return ""
	}
	return "; for example " + in.example
}

// arguments are a call's arguments in the order the model wrote them.
type arguments []value

// value is one argument, or one element of an argument that is an array.
type value struct {
	key     string
	raw     json.RawMessage
	claimed bool
}

// read splits raw, a JSON object, into its values. {"numbers": [6, 7]}
// counts as two values, as another way to write two numbers.
func (in *input) read(raw json.RawMessage) (arguments, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("arguments must be a JSON object%s", in.forExample())
	}
	var args arguments
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		var elems []json.RawMessage
		if v[0] == '[' && json.Unmarshal(v, &elems) == nil {
			for i, e := range elems {
				args = append(args, value{key: fmt.Sprintf("%s[%d]", key, i), raw: e})
			}
			continue
		}
		args = append(args, value{key: key.(string), raw: v})
	}
	return args, nil
}

// first claims the first unclaimed argument that match takes.
func (args arguments) first(match func(*value) bool) *value {
	for i := range args {
		if v := &args[i]; !v.claimed && match(v) {
			v.claimed = true
			return v
		}
	}
	return nil
}

// shown is raw as an error quotes it.
func shown(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
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
