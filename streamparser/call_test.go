package streamparser

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseJSONFields(t *testing.T) {
	tests := []struct {
		raw, name, args, reason string
	}{
		{raw: `{"name":"a","arguments":null}`, name: "a", args: `{}`},
		{raw: `{"arguments":{"k": [1, 2]},"name":"a"}`, name: "a", args: `{"k":[1,2]}`},
		{raw: `{"name":"a","arguments":{"k":1},"arguments":{"k":2}}`, name: "a", args: `{"k":2}`},
		{raw: `{"na\u006de":"a","parameters":{"s":" x "}}`, name: "a", args: `{"s":" x "}`},
		{raw: `{"name":"\u0061 ","id":7,"ok":true,"x":[{"name":"no"}],"arguments":{}}`, name: "a", args: `{}`},
		{raw: `{"name":"a","arguments":"{\"k\": \"v w\"}"}`, name: "a", args: `{"k":"v w"}`},
		{raw: `{"name":"a","arguments":"not json"}`, reason: `"arguments" must be a JSON object, got "not json"`},
		{raw: `{"name":"a","arguments":7}`, reason: `"arguments" must be a JSON object, got 7`},
		{raw: `{"name":"a", "arguments":{}`, reason: "not valid JSON (unexpected end of JSON input)"},
		{raw: "{\"name\":\"\xd8\"}", name: "\uFFFD", args: `{}`},
		{raw: `{"name":" "}`, reason: `"name" must be a tool name`},
		{raw: `{"name":null}`, reason: `"name" must be a tool name`},
	}
	for _, tt := range tests {
		name, args, reason := hermes.parseJSON(tt.raw)
		if name != tt.name || string(args) != tt.args || !strings.Contains(reason, tt.reason) || (reason == "") != (tt.reason == "") {
			t.Errorf("parseJSON(%s) = %q, %s, %q; want %q, %s, %q", tt.raw, name, args, reason, tt.name, tt.args, tt.reason)
		}
	}
}

// FuzzJSONCall checks the fast JSON call reader against a plain decoding
// with encoding/json: they must agree on every input.
func FuzzJSONCall(f *testing.F) {
	for _, c := range corpus() {
		for _, e := range c.want {
			if e.Kind == CallParsed || e.Kind == CallInvalid {
				f.Add(e.Raw)
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, args, reason := hermes.parseJSON(raw)
		wantName, wantArgs, ok := decodeCall(raw)
		if ok != (reason == "") || name != wantName || string(args) != wantArgs {
			t.Fatalf("parseJSON(%q) = %q, %s, %q; encoding/json reads %q, %s, valid %v", raw, name, args, reason, wantName, wantArgs, ok)
		}
	})
}

// decodeCall reads a JSON call the slow, obvious way.
func decodeCall(raw string) (name, args string, ok bool) {
	var fields map[string]json.RawMessage
	if body := strings.TrimSpace(raw); body == "" || body[0] != '{' || json.Unmarshal([]byte(body), &fields) != nil {
		return "", "", false
	}
	if json.Unmarshal(fields["name"], &name) != nil || strings.TrimSpace(name) == "" {
		return "", "", false
	}
	a, found := fields["arguments"]
	if !found {
		a = fields["parameters"]
	}
	if len(a) == 0 || string(a) == "null" {
		return strings.TrimSpace(name), "{}", true
	}
	var inner string
	if json.Unmarshal(a, &inner) == nil && json.Valid([]byte(inner)) {
		a = bytes.TrimSpace([]byte(inner))
	}
	var b bytes.Buffer
	if a[0] != '{' || json.Compact(&b, a) != nil {
		return "", "", false
	}
	return strings.TrimSpace(name), b.String(), true
}

// TestJSONDepthLimit checks that the JSON reader stops nesting where
// encoding/json does.
func TestJSONDepthLimit(t *testing.T) {
	for _, depth := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		v := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		r := jsonReader{cursor: cursor{s: v}}
		if got, want := r.value(), json.Valid([]byte(v)); got != want {
			t.Errorf("depth %d: the reader says valid=%v, encoding/json %v", depth, got, want)
		}
	}
}
