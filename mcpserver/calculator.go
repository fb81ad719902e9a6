// Package mcpserver holds toolscope's own MCP servers, a calculator and a
// unit converter, built with the official Go SDK. They are examples of MCP
// servers as much as tools: small, and forgiving of the argument names
// small models make up.
package mcpserver

import (
	"errors"
	"fmt"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calculator returns a server with the tools add, subtract, multiply,
// divide, sqrt, power and round_number. Each answers with the bare
// number, as in "42". Division by zero, the square root of a negative
// number and results too large to represent are tool errors the model
// reads, not protocol errors.
func Calculator() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "calculator", Title: "toolscope calculator", Version: version}, nil)
	addTools(s,
		binary("add", "Add two numbers.", "add(a=2, b=3) returns 5",
			func(a, b float64) (float64, error) { return a + b, nil }),
		binary("subtract", "Subtract b from a.", "subtract(a=10, b=4) returns 6",
			func(a, b float64) (float64, error) { return a - b, nil }),
		binary("multiply", "Multiply two numbers.", "multiply(a=6, b=7) returns 42",
			func(a, b float64) (float64, error) { return a * b, nil }),
		tool{
			name:    "divide",
			summary: "Divide a by b.",
			example: "divide(a=10, b=4) returns 2.5",
			params:  []param{first.also("numerator", "dividend"), second.also("denominator", "divisor")},
			run: calculate(func(x []float64) (float64, error) {
				if x[1] == 0 {
					return 0, fmt.Errorf("cannot divide %s by zero", formatNumber(x[0], precision))
				}
				return x[0] / x[1], nil
			}),
		},
		tool{
			name:    "sqrt",
			summary: "Square root of a number.",
			example: "sqrt(number=16) returns 4",
			params:  []param{{name: "number", about: "the number to take the square root of", number: true, aliases: []string{"x", "a", "n", "num", "value", "input", "radicand", "number1"}}},
			run: calculate(func(x []float64) (float64, error) {
				if x[0] < 0 {
					return 0, fmt.Errorf("cannot take the square root of a negative number (%s): it has no real result", formatNumber(x[0], precision))
				}
				return math.Sqrt(x[0]), nil
			}),
		},
		tool{
			name:    "power",
			summary: "Raise base to the power exponent.",
			example: "power(base=2, exponent=10) returns 1024",
			params: []param{
				{name: "base", about: "the number to raise", number: true, aliases: []string{"a", "x", "number", "number1", "num1", "value"}},
				{name: "exponent", about: "the power to raise it to", number: true, aliases: []string{"b", "y", "power", "exp", "number2", "num2", "n"}},
			},
			run: calculate(func(x []float64) (float64, error) {
				r := math.Pow(x[0], x[1])
				if math.IsNaN(r) {
					return 0, fmt.Errorf("%s to the power %s has no real result", formatNumber(x[0], precision), formatNumber(x[1], precision))
				}
				return r, nil
			}),
		},
		tool{
			name:    "round_number",
			summary: "Round a number to a number of decimal places (0 if not given).",
			example: "round_number(number=3.14159, decimals=2) returns 3.14",
			params: []param{
				{name: "number", about: "the number to round", number: true, aliases: []string{"value", "x", "a", "num", "n", "input", "number1"}},
				{name: "decimals", about: "how many decimal places to keep", number: true, optional: true, aliases: []string{"places", "decimalplaces", "digits", "ndigits", "precision", "b", "number2"}},
			},
			run: calculate(func(x []float64) (float64, error) {
				d := x[1]
				if d != math.Trunc(d) || d < 0 || d > 15 {
					return 0, fmt.Errorf("decimals must be a whole number from 0 to 15, got %s", formatNumber(d, precision))
				}
				p := math.Pow10(int(d))
				return math.Round(x[0]*p) / p, nil
			}),
		},
	)
	return s
}

// precision is how many significant digits the calculator shows.
const precision = 12

// The two numbers of most calculator tools.
var (
	first  = param{name: "a", about: "the first number", number: true, aliases: []string{"x", "number1", "num1", "n1", "first", "firstnumber", "value1", "operand1", "left"}}
	second = param{name: "b", about: "the second number", number: true, aliases: []string{"y", "number2", "num2", "n2", "second", "secondnumber", "value2", "operand2", "right"}}
)

func binary(name, summary, example string, fn func(a, b float64) (float64, error)) tool {
	return tool{name: name, summary: summary, example: example, params: []param{first, second},
		run: calculate(func(x []float64) (float64, error) { return fn(x[0], x[1]) })}
}

// calculate makes a tool's run function from a function of its numbers.
func calculate(fn func([]float64) (float64, error)) func(*arguments) (string, error) {
	return func(args *arguments) (string, error) {
		x, err := args.numbers(args.tool.params...)
		if err != nil {
			return "", err
		}
		r, err := fn(x)
		if err != nil {
			return "", err
		}
		if math.IsInf(r, 0) {
			return "", errors.New("the result is too large to represent")
		}
		return formatNumber(r, precision), nil
	}
}
