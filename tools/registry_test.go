package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fake is a Tool with a given schema that does nothing.
type fake struct {
	name, description, schema string
}

func (f fake) Name() string                { return f.name }
func (f fake) Description() string         { return f.description }
func (f fake) Parameters() json.RawMessage { return json.RawMessage(f.schema) }
func (f fake) Call(context.Context, json.RawMessage) (string, error) {
	return "", nil
}

const emptySchema = `{"type": "object"}`

func TestRegistryKeepsOrderAndLooksUp(t *testing.T) {
	b := fake{name: "b", schema: emptySchema}
	a := fake{name: "a", schema: emptySchema}
	c := fake{name: "c", schema: emptySchema}
	r, err := NewRegistry(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(c); err != nil {
		t.Fatal(err)
	}

	if got, want := r.Names(), []string{"b", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if got, want := r.Tools(), []Tool{b, a, c}; !slices.Equal(got, want) {
		t.Errorf("Tools() = %v, want %v", got, want)
	}
	if got, ok := r.Lookup("a"); !ok || got != a {
		t.Errorf("Lookup(a) = %v, %v; want %v, true", got, ok, a)
	}
	if got, ok := r.Lookup("z"); ok || got != nil {
		t.Errorf("Lookup(z) = %v, %v; want nil, false", got, ok)
	}

	// The slices returned are copies.
	r.Tools()[0] = nil
	r.Names()[0] = "x"
	if got := r.Names(); got[0] != "b" {
		t.Errorf("after changing returned slices, Names() = %v", got)
	}
}

func TestRegistryRejectsDuplicateNames(t *testing.T) {
	first := fake{name: "send_mail", description: "Send an email. Example: …", schema: emptySchema}
	second := fake{name: "send_mail", description: "Mail a letter through the MCP post office", schema: emptySchema}
	_, err := NewRegistry(first, second)
	want := `tools: two tools are named "send_mail": "Send an email" and "Mail a letter through the MCP post office"; rename one of them`
	if err == nil || err.Error() != want {
		t.Errorf("NewRegistry(duplicates) error = %v\nwant %s", err, want)
	}

	r, err := NewRegistry(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(second); err == nil {
		t.Error("Add(duplicate) succeeded")
	}
	if got, _ := r.Lookup("send_mail"); got != first {
		t.Errorf("after a rejected duplicate, Lookup returns %v, want the first tool", got)
	}
}

// refusal is a tool that Registry.Add must refuse, with an error that
// says errHas.
type refusal struct {
	name   string
	tool   Tool
	errHas string
}

// wantRefused checks that each tool is refused as its case says, and
// that nothing of it is registered.
func wantRefused(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Registry{}
			err := r.Add(tt.tool)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Add error = %v, want one containing %q", err, tt.errHas)
			}
			if names := r.Names(); len(names) != 0 {
				t.Errorf("a refused tool was registered: %v", names)
			}
		})
	}
}

func TestRegistryRejectsBadTools(t *testing.T) {
	wantRefused(t, []refusal{
		{"nil", nil, "nil Tool"},
		{"empty name", fake{description: "Does things.", schema: emptySchema}, `empty name (description "Does things")`},
		{"no schema", fake{name: "t"}, `tool "t": no parameters schema`},
		{"not JSON", fake{name: "t", schema: `{"type": "object",}`}, `tool "t": parameters schema is not valid JSON`},
		{"not an object schema", fake{name: "t", schema: `{"type": "string"}`}, `tool "t": parameters schema must have "type": "object"`},
		{"unknown type", fake{name: "t", schema: `{"type": "object", "properties": {"a": {"type": "text"}}}`},
			`tool "t": invalid parameters schema: at '/properties/a/type'`},
		{"bad pattern", fake{name: "t", schema: `{"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}`},
			`tool "t": invalid parameters schema: at '/properties/a/pattern': '(' is not valid regex`},
		{"external ref", fake{name: "t", schema: `{"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}}`},
			"tool schemas must be self-contained"},
	})
}

func TestCheckStubArguments(t *testing.T) {
	r, err := NewRegistry(Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		want             string // "" for valid arguments
	}{
		{"valid mail", "send_mail", `{"to": "john@example.com", "subject": "Hi", "body": "Hello"}`, ""},
		{"valid meeting", "schedule_meeting", `{"title": "Review", "attendees": ["a@example.com"], "date": "2026-03-14", "time": "09:05"}`, ""},
		{"unknown tool", "foo", `{}`,
			`unknown tool "foo"; available tools: send_mail, schedule_meeting, cancel_meeting`},
		{"missing", "send_mail", `{"subject": "Hi", "body": "Hello"}`,
			`missing required argument "to"`},
		{"wrong type", "schedule_meeting", `{"title": "Review", "attendees": "a@example.com", "date": "2026-03-14", "time": "09:05"}`,
			`argument "attendees" must be an array, got string`},
		{"wrong item type", "schedule_meeting", `{"title": "Review", "attendees": ["a@example.com", 7], "date": "2026-03-14", "time": "09:05"}`,
			`argument "attendees[1]" must be a string, got number`},
		{"unexpected", "send_mail", `{"to": "john@example.com", "subject": "Hi", "body": "Hello", "cc": "ann@example.com"}`,
			`unexpected argument "cc" (send_mail takes: to, subject, body)`},
		{"pattern", "cancel_meeting", `{"title": "Review", "date": "14/03/2026"}`,
			`argument "date" must match the pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ (Day of the meeting as YYYY-MM-DD, e.g. 2026-03-14), got "14/03/2026"`},
		{"time out of range", "schedule_meeting", `{"title": "Review", "attendees": ["a@example.com"], "date": "2026-03-14", "time": "24:00"}`,
			`argument "time" must match the pattern ^([01][0-9]|2[0-3]):[0-5][0-9]$ (Start time as HH:MM on a 24-hour clock, e.g. 15:30), got "24:00"`},
		{"email format", "send_mail", `{"to": "john", "subject": "Hi", "body": "Hello"}`,
			`argument "to" must be a valid email, got "john" (missing @)`},
		{"min items", "schedule_meeting", `{"title": "Review", "attendees": [], "date": "2026-03-14", "time": "09:05"}`,
			`argument "attendees" must have at least 1 item, got 0`},
		{"array", "send_mail", `["john@example.com", "Hi", "Hello"]`,
			`arguments must be a JSON object, got array`},
		{"null", "send_mail", `null`,
			`arguments must be a JSON object, got null`},
		{"not JSON", "send_mail", `{"to": "john@example.com",`,
			`arguments are not valid JSON (unexpected EOF); write them as one JSON object`},
		{"trailing data", "cancel_meeting", `{"title": "Review", "date": "2026-03-14"}}`,
			`arguments are not valid JSON (invalid character after top-level value); write them as one JSON object`},
		{"empty means no arguments", "cancel_meeting", ``,
			`missing required argument "date"; missing required argument "title"`},
		{"several problems", "schedule_meeting", `{"title": 3, "attendees": ["a@example.com", "b", null], "date": "tomorrow", "room": "B2", "notes": ""}`,
			`argument "attendees[1]" must be a valid email, got "b" (missing @); ` +
				`argument "attendees[2]" must be a string, got null; ` +
				`argument "date" must match the pattern ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ (Day of the meeting as YYYY-MM-DD, e.g. 2026-03-14), got "tomorrow"; ` +
				`unexpected argument "notes" (schedule_meeting takes: title, attendees, date, time); ` +
				`unexpected argument "room" (schedule_meeting takes: title, attendees, date, time); ` +
				`missing required argument "time"; ` +
				`argument "title" must be a string, got number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Check(tt.tool, json.RawMessage(tt.args))
			if tt.want == "" {
				if err != nil {
					t.Errorf("Check(%s) = %v, want nil", tt.args, err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("Check(%s) =\n%v\nwant\n%s", tt.args, err, tt.want)
			}
		})
	}
}

func TestCheckNamesNestedArguments(t *testing.T) {
	const schema = `{
	  "type": "object",
	  "properties": {
	    "address": {
	      "type": "object",
	      "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
	      "required": ["city"],
	      "additionalProperties": false
	    },
	    "stops": {"type": "array", "items": {"$ref": "#/$defs/stop"}},
	    "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
	    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
	    "empty": {"type": "object", "additionalProperties": false}
	  },
	  "$defs": {"stop": {"type": "object", "properties": {"city": {"type": "string"}}}}
	}`
	r, err := NewRegistry(fake{name: "route", schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"address": {"street": "Main St", "zip": "123"}}`,
			`missing required argument "address.city"; unexpected argument "address.zip" (address takes: street, city)`},
		{`{"stops": [{"city": "Oslo"}, {"city": 4}]}`,
			`argument "stops[1].city" must be a string, got number`},
		// A numeric key in an object is a key, not an index.
		{`{"labels": {"1": "one"}}`,
			`argument "labels.1" must be an integer, got string`},
		{`{"labels": {"a": 1.5}}`,
			`argument "labels.a" must be an integer, got number`},
		{`{"note": 5}`,
			`argument "note" must be a string or null, got number`},
		{`{"empty": {"x": 1}}`,
			`unexpected argument "empty.x" (empty takes no arguments)`},
		{`{"address": {"city": "Oslo"}, "stops": [], "labels": {}, "note": null}`, ""},
	}
	for _, tt := range tests {
		err := r.Check("route", json.RawMessage(tt.args))
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("Check(%s) =\n%v\nwant\n%s", tt.args, err, tt.want)
		}
	}
}

func TestCheckExplainsOtherRules(t *testing.T) {
	const schema = `{
	  "type": "object",
	  "properties": {
	    "unit": {"enum": ["C", "F"]},
	    "kind": {"const": "celsius"},
	    "count": {"type": "integer", "minimum": 1, "maximum": 10},
	    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.5},
	    "code": {"type": "string", "minLength": 2, "maxLength": 3},
	    "tags": {"type": "array", "maxItems": 2, "uniqueItems": true},
	    "opts": {"type": "object", "minProperties": 1, "maxProperties": 1},
	    "never": false,
	    "either": {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 1}]},
	    "shape": {"anyOf": [{"type": "object", "required": ["r"]}, {"type": "object", "required": ["w", "h"]}]},
	    "odd": {"not": {"type": "string"}},
	    "list": {"type": "array", "contains": {"type": "string"}}
	  },
	  "dependentRequired": {"h": ["w"]},
	  "additionalProperties": {"type": "number"}
	}`
	r, err := NewRegistry(fake{name: "t", schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"unit": "K"}`, `argument "unit" must be one of "C", "F", got "K"`},
		{`{"kind": "kelvin"}`, `argument "kind" must be "celsius", got "kelvin"`},
		{`{"count": 0}`, `argument "count" must be at least 1, got 0`},
		{`{"count": 11}`, `argument "count" must be at most 10, got 11`},
		{`{"ratio": 0}`, `argument "ratio" must be greater than 0, got 0`},
		{`{"ratio": 2}`, `argument "ratio" must be less than 1.5, got 2`},
		{`{"ratio": 0.7}`, `argument "ratio" must be a multiple of 0.5, got 0.7`},
		{`{"code": "x"}`, `argument "code" must be at least 2 characters long, got 1`},
		{`{"code": "long"}`, `argument "code" must be at most 3 characters long, got 4`},
		{`{"tags": [1, 2, 1]}`, `argument "tags" must have at most 2 items, got 3; argument "tags" must not repeat items, but items 0 and 2 are equal`},
		{`{"opts": {}}`, `argument "opts" must have at least 1 property, got 0`},
		{`{"opts": {"a": 1, "b": 2}}`, `argument "opts" must have at most 1 property, got 2`},
		{`{"never": 1}`, `argument "never" is not allowed`},
		{`{"either": "x"}`, `argument "either" must match exactly one of its allowed forms, but matches several`},
		{`{"shape": {"w": 1}}`, `argument "shape" must match one of its allowed forms: missing required argument "shape.r", or missing required argument "shape.h"`},
		{`{"odd": "s"}`, `argument "odd" must not match the schema under "not"`},
		{`{"list": [1]}`, `argument "list" does not satisfy the schema's "contains" rule`},
		{`{"h": 1}`, `missing required argument "w" (needed when "h" is given)`},
		{`{"extra": "x"}`, `argument "extra" must be a number, got string`},
		{`{"unit": "` + strings.Repeat("x", 100) + `"}`,
			`argument "unit" must be one of "C", "F", got "` + strings.Repeat("x", 59) + `…`},
	}
	for _, tt := range tests {
		err := r.Check("t", json.RawMessage(tt.args))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Check(%s) =\n%v\nwant\n%s", tt.args, err, tt.want)
		}
	}
}

func TestCheckUnknownToolInEmptyRegistry(t *testing.T) {
	var r Registry
	want := `unknown tool "foo"; no tools are available`
	if err := r.Check("foo", nil); err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %s", err, want)
	}
}

// TestRegistryConcurrentUse is for the race detector.
func TestRegistryConcurrentUse(t *testing.T) {
	r, err := NewRegistry(Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := r.Add(fake{name: fmt.Sprint("t", i), schema: emptySchema}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := r.Check("cancel_meeting", json.RawMessage(`{"title": "x", "date": "2026-01-01"}`)); err != nil {
				t.Error(err)
			}
			r.Names()
			r.Tools()
		})
	}
	wg.Wait()
	if n := len(r.Names()); n != 3+8 {
		t.Errorf("registry holds %d tools, want 11", n)
	}
}

func TestAddAllKeepsWhatItCan(t *testing.T) {
	r, err := NewRegistry(Stubs(0)...)
	if err != nil {
		t.Fatal(err)
	}
	object := json.RawMessage(`{"type":"object"}`)
	noop := func(context.Context, struct{}) (string, error) { return "", nil }
	err = r.AddAll([]Tool{
		Func("add", "Adds.", object, noop),
		Func("send_mail", "Another send_mail.", object, noop),
		Func("broken", "Bad schema.", json.RawMessage(`{"type":"nope"}`), noop),
		Func("multiply", "Multiplies.", object, noop),
	})
	if got := strings.Join(r.Names(), " "); got != "send_mail schedule_meeting cancel_meeting add multiply" {
		t.Fatalf("names = %s, want the stubs and the two good tools", got)
	}
	if err == nil || !strings.Contains(err.Error(), `two tools are named "send_mail"`) || !strings.Contains(err.Error(), `"broken"`) {
		t.Fatalf("AddAll error = %v, want both tools left out named", err)
	}
	if err := r.AddAll(nil); err != nil {
		t.Fatalf("AddAll(nil) = %v", err)
	}
}
