package mcpserver

import (
	"context"
	"fmt"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calculator returns a server with the tools add, subtract, multiply,
// divide, sqrt, power and round_number. Each answers with the bare
// number as text, as in "42", and as the structured content
// {"result": 42}. Division by zero, the square root of a negative
// number and results too large to represent are tool errors the model
// reads, not protocol errors.
func Calculator() *mcp.Server {
	s := newServer("calculator", "toolscope calculator")
	addTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers. Example: add(a=2, b=3) returns 5"},
		calculate(func(in operands) (float64, error) { return in.A + in.B, nil }))
	addTool(s, &mcp.Tool{Name: "subtract", Description: "Subtract b from a. Example: subtract(a=10, b=4) returns 6"},
		calculate(func(in operands) (float64, error) { return in.A - in.B, nil }))
	addTool(s, &mcp.Tool{Name: "multiply", Description: "Multiply two numbers. Example: multiply(a=6, b=7) returns 42"},
		calculate(func(in operands) (float64, error) { return in.A * in.B, nil }))
	addTool(s, &mcp.Tool{Name: "divide", Description: "Divide a by b. Example: divide(a=10, b=4) returns 2.5"},
		calculate(func(in operands) (float64, error) {
			if in.B == 0 {
				return 0, fmt.Errorf("cannot divide %s by zero", formatNumber(in.A, precision))
			}
			return in.A / in.B, nil
		}))
	addTool(s, &mcp.Tool{Name: "sqrt", Description: "Square root of a number. Example: sqrt(number=16) returns 4"},
		calculate(func(in radicand) (float64, error) {
			if in.Number < 0 {
				return 0, fmt.Errorf("cannot take the square root of a negative number (%s): it has no real result", formatNumber(in.Number, precision))
			}
			return math.Sqrt(in.Number), nil
		}))
	addTool(s, &mcp.Tool{Name: "power", Description: "Raise base to the power exponent. Example: power(base=2, exponent=10) returns 1024"},
		calculate(func(in power) (float64, error) {
			r := math.Pow(in.Base, in.Exponent)
			if math.IsNaN(r) {
				return 0, fmt.Errorf("%s to the power %s has no real result", formatNumber(in.Base, precision), formatNumber(in.Exponent, precision))
			}
			return r, nil
		}))
	addTool(s, &mcp.Tool{Name: "round_number", Description: "Round a number to a number of decimal places (0 if not given). Example: round_number(number=3.14159, decimals=2) returns 3.14"},
		calculate(func(in rounding) (float64, error) {
			if in.Decimals < 0 || in.Decimals > 15 {
				return 0, fmt.Errorf("decimals must be from 0 to 15, got %d", in.Decimals)
			}
			p := math.Pow10(in.Decimals)
			return math.Round(in.Number*p) / p, nil
		}))
	return s.Server
}

// The input types of the calculator's tools. Their schemas ask for what
// the json and jsonschema tags say; the aka tags list the other names
// models use, which the server takes too (see the package documentation).
type (
	operands struct {
		A float64 `json:"a" jsonschema:"the first number" aka:"x,number1,num1,n1,first,firstnumber,value1,operand1,left,numerator,dividend"`
		B float64 `json:"b" jsonschema:"the second number" aka:"y,number2,num2,n2,second,secondnumber,value2,operand2,right,denominator,divisor"`
	}
	radicand struct {
		Number float64 `json:"number" jsonschema:"the number to take the square root of" aka:"x,a,n,num,value,input,radicand,number1"`
	}
	power struct {
		Base     float64 `json:"base" jsonschema:"the number to raise" aka:"a,x,number,number1,num1,value"`
		Exponent float64 `json:"exponent" jsonschema:"the power to raise it to" aka:"b,y,power,exp,number2,num2,n"`
	}
	rounding struct {
		Number   float64 `json:"number" jsonschema:"the number to round" aka:"value,x,a,num,n,input,number1"`
		Decimals int     `json:"decimals,omitempty" jsonschema:"how many decimal places to keep, from 0 to 15; 0 if not given" aka:"places,decimalplaces,digits,ndigits,precision,b,number2"`
	}
)

// calculate makes a tool handler from a function of the tool's input.
func calculate[In any](fn func(In) (float64, error)) mcp.ToolHandlerFor[In, answer] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, answer, error) {
		r, err := fn(in)
		if err == nil {
			err = representable(r)
		}
		if err != nil {
			return nil, answer{}, err
		}
		return reply(answer{Result: significant(r, precision)})
	}
}
