package tools_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/tools"
)

func ExamplePropertyOrder() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"to": {"type": "string"},
			"subject": {"type": "string", "properties": {"not": {}, "these": {}}},
			"body": {"type": "string"}
		},
		"required": ["to"]
	}`)
	fmt.Println(tools.PropertyOrder(schema))
	// Output: [to subject body]
}

func TestPropertyOrder(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{"not alphabetical", `{"properties": {"z": {}, "a": {"properties": {"inner": {}}}, "m": true}}`, []string{"z", "a", "m"}},
		{"properties after other keywords", `{"type": "object", "required": ["b"], "properties": {"b": {}, "a": {}}}`, []string{"b", "a"}},
		{"a name written twice", `{"properties": {"b": {}, "a": {}, "b": {"type": "string"}}}`, []string{"b", "a"}},
		{"no properties", `{"type": "object"}`, nil},
		{"empty properties", `{"type": "object", "properties": {}}`, nil},
		{"properties not an object", `{"properties": ["a", "b"]}`, nil},
		{"not an object", `["properties"]`, nil},
		{"not JSON", `{"properties": {"a": {}`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		if got := tools.PropertyOrder(json.RawMessage(tt.schema)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: PropertyOrder(%s) = %q, want %q", tt.name, tt.schema, got, tt.want)
		}
	}
}
