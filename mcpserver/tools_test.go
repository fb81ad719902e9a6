package mcpserver_test

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// connect serves the servers over streamable HTTP and connects toolscope's
// client to them.
func connect(t *testing.T, servers map[string]*sdk.Server) map[string]tools.Tool {
	t.Helper()
	var specs []mcp.ServerSpec
	for name, s := range servers {
		h, err := mcpserver.Handler(s, mcpserver.TransportHTTP)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		specs = append(specs, mcp.ServerSpec{Name: name, URL: srv.URL})
	}
	hub, err := mcp.Connect(t.Context(), specs, mcp.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { hub.Close() })
	if err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]tools.Tool)
	for _, tool := range hub.Tools() {
		byName[tool.Name()] = tool
	}
	return byName
}

func TestTools(t *testing.T) {
	byName := connect(t, map[string]*sdk.Server{"calculator": mcpserver.Calculator(), "converter": mcpserver.Converter()})
	tests := []struct {
		tool, args string
		want       string // the result, or with wantErr a part of the error
		wantErr    bool
	}{
		// The names the schema advertises, the names small models
		// improvise, numbers as strings, and numbers in the order given.
		{"add", `{"a": 2, "b": 3}`, "5", false},
		{"add", `{"x": 2, "y": 3}`, "5", false},
		{"add", `{"number1": "2", "number2": "3"}`, "5", false},
		{"add", `{"Number_1": 2, "number-2": 3}`, "5", false},
		{"add", `{"num_a": 2, "num_b": 3}`, "5", false},
		{"add", `{"numbers": [2, 3]}`, "5", false},
		{"add", `{"a": " 2.5 ", "b": 1}`, "3.5", false},
		{"add", `{"a": 0.1, "b": 0.2}`, "0.3", false},
		{"subtract", `{"b": 4, "a": 10}`, "6", false},
		{"subtract", `{"x": 10, "y": 4}`, "6", false},
		{"subtract", `{"a": 3, "b": 3}`, "0", false},
		{"multiply", `{"a": 27, "b": 15}`, "405", false},
		{"multiply", `{"a": -1, "b": 0}`, "0", false},
		{"multiply", `{"a": 1e200, "b": 1e200}`, "the result is too large to represent", true},
		{"divide", `{"numerator": 1, "denominator": 3}`, "0.333333333333", false},
		{"divide", `{"dividend": 10, "divisor": 4}`, "2.5", false},
		{"divide", `{"a": 1, "b": 0}`, "cannot divide 1 by zero", true},
		{"sqrt", `{"number": 16}`, "4", false},
		{"sqrt", `{"x": "2"}`, "1.41421356237", false},
		{"sqrt", `{"value": -4}`, "cannot take the square root of a negative number (-4)", true},
		{"power", `{"base": 2, "exponent": 10}`, "1024", false},
		{"power", `{"exponent": 3, "base": 2}`, "8", false},
		{"power", `{"number": 2, "power": 3}`, "8", false},
		{"power", `{"a": 1e10, "b": 1e10}`, "the result is too large to represent", true},
		{"power", `{"x": -8, "y": 0.5}`, "-8 to the power 0.5 has no real result", true},
		{"round_number", `{"number": 3.14159, "decimals": 2}`, "3.14", false},
		{"round_number", `{"number": 2.5}`, "3", false},
		{"round_number", `{"value": "1234.5678", "places": "1"}`, "1234.6", false},
		{"round_number", `{"number": 1.5, "decimals": 1.5}`, `round_number: argument "decimals" must be a whole number, got 1.5`, true},
		{"round_number", `{"number": 1.5, "decimals": 16}`, "decimals must be from 0 to 15, got 16", true},
		{"add", `{}`, `add needs "a" (the first number) and "b" (the second number), but the arguments were {}; for example add(a=2, b=3) returns 5`, true},
		{"add", `{"a": 1}`, `add needs "b" (the second number), but the arguments were {"a":1}`, true},
		{"add", `{"a": "two", "b": 3}`, `add: argument "a" must be a number, got "two"`, true},
		{"add", `{"a": 1, "b": null}`, `add: argument "b" must be a number, got null`, true},
		{"add", `{"a": "NaN", "b": 1}`, `argument "a" must be a number, got "NaN"`, true},
		{"add", `[1, 2]`, "arguments must be a JSON object; for example add(a=2, b=3) returns 5", true},

		{"celsius_to_fahrenheit", `{"celsius": 100}`, "100 °C = 212 °F", false},
		{"celsius_to_fahrenheit", `{"c": 37}`, "37 °C = 98.6 °F", false},
		{"celsius_to_fahrenheit", `{"temperature": "-40"}`, "-40 °C = -40 °F", false},
		{"celsius_to_fahrenheit", `{"celsius": -300}`, "-300 °C is below absolute zero (-273.15 °C)", true},
		{"fahrenheit_to_celsius", `{"fahrenheit": 212}`, "212 °F = 100 °C", false},
		{"fahrenheit_to_celsius", `{"f": 98.6}`, "98.6 °F = 37 °C", false},
		{"convert_length", `{"value": 5, "from_unit": "km", "to_unit": "mi"}`, "5 km = 3.106856 mi", false},
		{"convert_length", `{"length": 12, "from": "inches", "to": "feet"}`, "12 in = 1 ft", false},
		{"convert_length", `{"value": 1, "unit": "Miles", "to": "meters."}`, "1 mi = 1609.344 m", false},
		{"convert_length", `{"amount": 100, "from_units": "cm", "to_units": "m"}`, "100 cm = 1 m", false},
		{"convert_length", `{"distance": 3, "a": "ft", "b": "cm"}`, "3 ft = 91.44 cm", false},
		{"convert_length", `{"value": 1, "from_unit": "parsec", "to_unit": "m"}`, `argument "from_unit" must be a length unit (mm, cm, m, km, in, ft, yd, mi), got "parsec"`, true},
		{"convert_length", `{"value": 1, "from_unit": "m"}`, `convert_length needs "to_unit"`, true},
		{"convert_weight", `{"value": 2, "from_unit": "lb", "to_unit": "kg"}`, "2 lb = 0.9071847 kg", false},
		{"convert_weight", `{"weight": 1, "from": "stone", "to": "pounds"}`, "1 st = 14 lb", false},
		{"convert_weight", `{"mass": "500", "from": "g", "to": "oz"}`, "500 g = 17.63698 oz", false},
		{"convert_weight", `{"value": 1, "from": "metric  ton", "to": "KG"}`, "1 t = 1000 kg", false},
		{"convert_weight", `{"value": 1, "from": "km", "to": "kg"}`, `must be a weight unit (mg, g, kg, t, oz, lb, st), got "km"`, true},
		{"convert_length", `{"value": 1e308, "from_unit": "km", "to_unit": "mm"}`, "the result is too large to represent", true},
	}
	for _, tt := range tests {
		tool, ok := byName[tt.tool]
		if !ok {
			t.Fatalf("no tool %q", tt.tool)
		}
		got, err := tool.Call(t.Context(), json.RawMessage(tt.args))
		switch {
		case tt.wantErr && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s(%s) = %q, %v; want an error saying %q", tt.tool, tt.args, got, err, tt.want)
		case !tt.wantErr && (err != nil || got != tt.want):
			t.Errorf("%s(%s) = %q, %v; want %q", tt.tool, tt.args, got, err, tt.want)
		}
	}
}

func TestDescriptionsCarryAnExample(t *testing.T) {
	byName := connect(t, map[string]*sdk.Server{"calculator": mcpserver.Calculator(), "converter": mcpserver.Converter()})
	if len(byName) != 11 {
		t.Errorf("%d tools, want 11", len(byName))
	}
	for name, tool := range byName {
		if d := tool.Description(); !strings.Contains(d, " Example: "+name+"(") {
			t.Errorf("%s's description has no example: %q", name, d)
		}
	}
}

// TestRegistryRefusesImprovisedCalls checks that the schemas are honest:
// toolscope's own check, which runs before every call, shows the model
// what its improvised call lacks instead of letting the server guess.
func TestRegistryRefusesImprovisedCalls(t *testing.T) {
	byName := connect(t, map[string]*sdk.Server{"calculator": mcpserver.Calculator(), "converter": mcpserver.Converter()})
	registry, err := tools.NewRegistry(slices.Collect(maps.Values(byName))...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ tool, args, want string }{
		{"multiply", `{"a": 6, "b": 7}`, ""},
		{"multiply", `{"x": 6, "y": 7}`, `missing required argument "a"; missing required argument "b"; ` +
			`unexpected argument "x" (multiply takes: a, b); unexpected argument "y" (multiply takes: a, b)`},
		{"multiply", `{"a": "6", "b": 7}`, `argument "a" must be a number, got string`},
		{"round_number", `{"number": 2.5}`, ""},
		{"round_number", `{"number": 2.5, "decimals": 1.5}`, `argument "decimals" must be an integer, got number`},
		{"convert_length", `{"value": 5, "from_unit": "km"}`, `missing required argument "to_unit"`},
	}
	for _, tt := range tests {
		err := registry.Check(tt.tool, json.RawMessage(tt.args))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("the registry refuses %s(%s): %v", tt.tool, tt.args, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("the registry's check of %s(%s) = %v, want %q", tt.tool, tt.args, err, tt.want)
		}
	}
}
