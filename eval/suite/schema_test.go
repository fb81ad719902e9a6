package suite

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/toolscope/toolscope/engine"
)

// suiteSchema compiles schema.json, the suite format's JSON Schema.
func suiteSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	raw, err := os.ReadFile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s, doc.(map[string]any)
}

// asJSON reads a YAML or JSON suite into what the schema validates.
func asJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSchemaTakesTheSuitesLoadTakes(t *testing.T) {
	s, _ := suiteSchema(t)
	example, err := os.ReadFile("testdata/stubs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"testdata/stubs.yaml": string(example), "base": base} {
		if _, err := Parse(name, []byte(text)); err != nil {
			t.Fatalf("Parse(%s): %v", name, err)
		}
		if err := s.Validate(asJSON(t, text)); err != nil {
			t.Errorf("the schema refuses %s, which Parse takes: %v", name, err)
		}
	}
}

func TestSchemaRefusesWhatLoadRefuses(t *testing.T) {
	s, _ := suiteSchema(t)
	for name, edit := range map[string][2]string{
		"an unknown field":            {"    request:", "    reqest:"},
		"a case without expectations": {"    expect:\n      calls:\n        - name: send_mail\n          args:\n            to: john@example.com\n", ""},
		"a repeat of 0":               {"  - id: a", "  - id: a\n    repeat: 0"},
		"a matcher of two kinds":      {"to: john@example.com", `to: {regex: "john", any: true}`},
		"a tolerance alone":           {"to: john@example.com", `to: {exact: 1, tolerance: 0.5}`},
		"calls and no call":           {"      calls:", "      no_call: true\n      calls:"},
		"an unknown stub":             {"stubs: [send_mail]", "stubs: [send_email]"},
		"an unknown setting":          {"tools:", "settings: {max_round: 3}\ntools:"},
	} {
		t.Run(name, func(t *testing.T) {
			text := strings.Replace(base, edit[0], edit[1], 1)
			if _, err := Parse("s.yaml", []byte(text)); err == nil {
				t.Fatal("Parse takes it")
			}
			if err := s.Validate(asJSON(t, text)); err == nil {
				t.Error("the schema takes it")
			}
		})
	}
}

// TestSchemaNamesWhatTheCodeDoes keeps the lists the schema holds true:
// the request settings (engine's table) and the stub tools.
func TestSchemaNamesWhatTheCodeDoes(t *testing.T) {
	_, doc := suiteSchema(t)
	defs := doc["$defs"].(map[string]any)
	settings := defs["settings"].(map[string]any)["properties"].(map[string]any)
	var keys []string
	for _, f := range engine.Fields() {
		if f.Request {
			keys = append(keys, f.Key())
		}
	}
	if got := slices.Sorted(maps.Keys(settings)); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
		t.Errorf("schema.json's settings are %v; engine's request settings are %v", got, keys)
	}
	stubNames := defs["tools"].(map[string]any)["properties"].(map[string]any)["stubs"].(map[string]any)["items"].(map[string]any)["enum"].([]any)
	var got []string
	for _, n := range stubNames {
		got = append(got, n.(string))
	}
	if want := slices.Sorted(maps.Keys(stubs)); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("schema.json's stubs are %v; the stub tools are %v", got, want)
	}
}
