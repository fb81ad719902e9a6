package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Converter returns a server with the tools celsius_to_fahrenheit,
// fahrenheit_to_celsius, convert_length and convert_weight. Answers read
// like "100 °C = 212 °F", and come as the structured content
// {"value": 100, "unit": "°C", "result": 212, "result_unit": "°F"} too.
func Converter() *mcp.Server {
	s := newServer("converter", "toolscope unit converter")
	addTool(s, &mcp.Tool{Name: "celsius_to_fahrenheit",
		Description: "Convert a temperature from degrees Celsius to degrees Fahrenheit. Example: celsius_to_fahrenheit(celsius=100) returns 100 °C = 212 °F"},
		temperature[inCelsius](celsius, fahrenheit, func(c float64) float64 { return c*9/5 + 32 }))
	addTool(s, &mcp.Tool{Name: "fahrenheit_to_celsius",
		Description: "Convert a temperature from degrees Fahrenheit to degrees Celsius. Example: fahrenheit_to_celsius(fahrenheit=212) returns 212 °F = 100 °C"},
		temperature[inFahrenheit](fahrenheit, celsius, func(f float64) float64 { return (f - 32) * 5 / 9 }))
	addTool(s, &mcp.Tool{Name: "convert_length",
		Description: fmt.Sprintf(`Convert a length from one unit to another (%s). Example: convert_length(value=5, from_unit="km", to_unit="mi") returns 5 km = 3.106856 mi`, lengths.symbols())},
		convert("length", lengths))
	addTool(s, &mcp.Tool{Name: "convert_weight",
		Description: fmt.Sprintf(`Convert a weight from one unit to another (%s). Example: convert_weight(value=2, from_unit="lb", to_unit="kg") returns 2 lb = 0.9071847 kg`, weights.symbols())},
		convert("weight", weights))
	return s.Server
}

// The input types of the converter's tools; see the calculator's.
type (
	inCelsius struct {
		Celsius float64 `json:"celsius" jsonschema:"the temperature in °C" aka:"temperature,temp,degrees,value,number,x,c,degreesc,degreescelsius,centigrade"`
	}
	inFahrenheit struct {
		Fahrenheit float64 `json:"fahrenheit" jsonschema:"the temperature in °F" aka:"temperature,temp,degrees,value,number,x,f,degreesf,degreesfahrenheit"`
	}
	// measurement is the input of convert_length and convert_weight,
	// whose descriptions list the units.
	measurement struct {
		Value    float64 `json:"value" jsonschema:"the amount to convert" aka:"amount,quantity,number,x,val,length,distance,weight,mass"`
		FromUnit string  `json:"from_unit" jsonschema:"its unit, by symbol or name" aka:"from,unitfrom,fromunits,source,sourceunit,inputunit,unit,units"`
		ToUnit   string  `json:"to_unit" jsonschema:"the unit to convert to, by symbol or name" aka:"to,unitto,tounits,target,targetunit,outputunit,into"`
	}
)

func (in inCelsius) degrees() float64    { return in.Celsius }
func (in inFahrenheit) degrees() float64 { return in.Fahrenheit }

// scale is a temperature scale.
type scale struct {
	symbol string
	zero   float64 // absolute zero
}

var (
	celsius    = scale{"°C", -273.15}
	fahrenheit = scale{"°F", -459.67}
)

func temperature[In interface{ degrees() float64 }](from, to scale, convert func(float64) float64) mcp.ToolHandlerFor[In, conversion] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, conversion, error) {
		t := in.degrees()
		if t < from.zero {
			return nil, conversion{}, fmt.Errorf("%s %s is below absolute zero (%s %s), the lowest temperature there is",
				formatNumber(t, convertedDigits), from.symbol, formatNumber(from.zero, convertedDigits), from.symbol)
		}
		return converted(t, from.symbol, convert(t), to.symbol)
	}
}

func convert(quantity string, us units) mcp.ToolHandlerFor[measurement, conversion] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in measurement) (*mcp.CallToolResult, conversion, error) {
		from, err := us.find(quantity, "from_unit", in.FromUnit)
		if err != nil {
			return nil, conversion{}, err
		}
		to, err := us.find(quantity, "to_unit", in.ToUnit)
		if err != nil {
			return nil, conversion{}, err
		}
		return converted(in.Value, from.symbol, in.Value*from.size/to.size, to.symbol)
	}
}

// converted replies with a conversion, or with an error if the result
// cannot be written down.
func converted(value float64, unit string, result float64, resultUnit string) (*mcp.CallToolResult, conversion, error) {
	if err := representable(result); err != nil {
		return nil, conversion{}, err
	}
	return reply(conversion{
		Value: significant(value, convertedDigits), Unit: unit,
		Result: significant(result, convertedDigits), ResultUnit: resultUnit,
	})
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

// find looks up the unit that argument names, by symbol or name,
// forgiving case, spaces and a trailing full stop; quantity names what
// us measures, for the error.
func (us units) find(quantity, argument, s string) (unit, error) {
	key := strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(s), ".")), " "))
	for _, u := range us {
		if key == u.symbol {
			return u, nil
		}
		for _, n := range u.names {
			if key == n {
				return u, nil
			}
		}
	}
	return unit{}, fmt.Errorf("argument %q must be a %s unit (%s), got %q", argument, quantity, us.symbols(), s)
}

func (us units) symbols() string {
	symbols := make([]string, len(us))
	for i, u := range us {
		symbols[i] = u.symbol
	}
	return strings.Join(symbols, ", ")
}
