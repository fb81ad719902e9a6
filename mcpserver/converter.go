package mcpserver

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Converter returns a server with the tools celsius_to_fahrenheit,
// fahrenheit_to_celsius, convert_length and convert_weight. Answers read
// like "100 °C = 212 °F".
func Converter() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "converter", Title: "toolscope unit converter", Version: version}, nil)
	addTools(s,
		temperature("celsius_to_fahrenheit", "Convert a temperature from degrees Celsius to degrees Fahrenheit.",
			"celsius_to_fahrenheit(celsius=100) returns 100 °C = 212 °F",
			celsius, fahrenheit, func(c float64) float64 { return c*9/5 + 32 }),
		temperature("fahrenheit_to_celsius", "Convert a temperature from degrees Fahrenheit to degrees Celsius.",
			"fahrenheit_to_celsius(fahrenheit=212) returns 212 °F = 100 °C",
			fahrenheit, celsius, func(f float64) float64 { return (f - 32) * 5 / 9 }),
		conversion("convert_length", "length", `convert_length(value=5, from_unit="km", to_unit="mi") returns 5 km = 3.106856 mi`,
			lengths, "length", "distance"),
		conversion("convert_weight", "weight", `convert_weight(value=2, from_unit="lb", to_unit="kg") returns 2 lb = 0.9071847 kg`,
			weights, "weight", "mass"),
	)
	return s
}

// convertedDigits is how many significant digits conversions show.
const convertedDigits = 7

// scale is a temperature scale.
type scale struct {
	name, symbol string
	zero         float64 // absolute zero
	aliases      []string
}

var (
	celsius    = scale{"celsius", "°C", -273.15, []string{"c", "degreesc", "degreescelsius", "centigrade"}}
	fahrenheit = scale{"fahrenheit", "°F", -459.67, []string{"f", "degreesf", "degreesfahrenheit"}}
)

func temperature(name, summary, example string, from, to scale, convert func(float64) float64) tool {
	in := param{name: from.name, about: "the temperature in " + from.symbol, number: true,
		aliases: append([]string{"temperature", "temp", "degrees", "value", "number", "x"}, from.aliases...)}
	return tool{name: name, summary: summary, example: example, params: []param{in},
		run: func(args *arguments) (string, error) {
			x, err := args.numbers(in)
			if err != nil {
				return "", err
			}
			t := x[0]
			if t < from.zero {
				return "", fmt.Errorf("%s %s is below absolute zero (%s %s), the lowest temperature there is",
					formatNumber(t, convertedDigits), from.symbol, formatNumber(from.zero, convertedDigits), from.symbol)
			}
			return fmt.Sprintf("%s %s = %s %s", formatNumber(t, convertedDigits), from.symbol,
				formatNumber(convert(t), convertedDigits), to.symbol), nil
		}}
}

// unit is a unit of length or weight.
type unit struct {
	symbol string
	size   float64  // in metres, or grams
	names  []string // besides the symbol, lower case
}

// units is a set of units of one quantity.
type units []unit

var (
	lengths = units{
		{"mm", 0.001, []string{"millimeter", "millimeters", "millimetre", "millimetres"}},
		{"cm", 0.01, []string{"centimeter", "centimeters", "centimetre", "centimetres"}},
		{"m", 1, []string{"meter", "meters", "metre", "metres"}},
		{"km", 1000, []string{"kilometer", "kilometers", "kilometre", "kilometres", "kms"}},
		{"in", 0.0254, []string{"inch", "inches"}},
		{"ft", 0.3048, []string{"foot", "feet"}},
		{"yd", 0.9144, []string{"yard", "yards", "yds"}},
		{"mi", 1609.344, []string{"mile", "miles"}},
	}
	weights = units{
		{"mg", 0.001, []string{"milligram", "milligrams", "milligramme", "milligrammes"}},
		{"g", 1, []string{"gram", "grams", "gramme", "grammes"}},
		{"kg", 1000, []string{"kilogram", "kilograms", "kilogramme", "kilogrammes", "kilo", "kilos", "kgs"}},
		{"t", 1e6, []string{"tonne", "tonnes", "metric ton", "metric tons"}},
		{"oz", 28.349523125, []string{"ounce", "ounces"}},
		{"lb", 453.59237, []string{"lbs", "pound", "pounds"}},
		{"st", 6350.29318, []string{"stone", "stones"}},
	}
)

// find looks a unit up by symbol or name, forgiving case, spaces and a
// trailing full stop.
func (us units) find(s string) (unit, bool) {
	s = strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(s), ".")), " "))
	for _, u := range us {
		if s == u.symbol {
			return u, true
		}
		for _, n := range u.names {
			if s == n {
				return u, true
			}
		}
	}
	return unit{}, false
}

func (us units) symbols() string {
	symbols := make([]string, len(us))
	for i, u := range us {
		symbols[i] = u.symbol
	}
	return strings.Join(symbols, ", ")
}

// conversion makes a tool that converts between units; aliases are more
// names for its value.
func conversion(name, quantity, example string, us units, aliases ...string) tool {
	value := param{name: "value", about: "the " + quantity + " to convert", number: true,
		aliases: append([]string{"amount", "quantity", "number", "x", "val"}, aliases...)}
	from := param{name: "from_unit", about: "its unit: " + us.symbols(),
		aliases: []string{"from", "unitfrom", "fromunits", "source", "sourceunit", "inputunit", "unit", "units"}}
	to := param{name: "to_unit", about: "the unit to convert to: " + us.symbols(),
		aliases: []string{"to", "unitto", "tounits", "target", "targetunit", "outputunit", "into"}}
	return tool{
		name:    name,
		summary: fmt.Sprintf("Convert a %s from one unit to another (%s).", quantity, us.symbols()),
		example: example,
		params:  []param{value, from, to},
		run: func(args *arguments) (string, error) {
			x, err := args.numbers(value)
			if err != nil {
				return "", err
			}
			names, err := args.text(fmt.Sprintf("a %s unit (%s)", quantity, us.symbols()),
				func(s string) bool { _, ok := us.find(s); return ok }, from, to)
			if err != nil {
				return "", err
			}
			a, _ := us.find(names[0])
			b, _ := us.find(names[1])
			return fmt.Sprintf("%s %s = %s %s", formatNumber(x[0], convertedDigits), a.symbol,
				formatNumber(x[0]*a.size/b.size, convertedDigits), b.symbol), nil
		},
	}
}
