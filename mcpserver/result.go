package mcpserver

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer is what a calculator tool returns as structured content.
type answer struct {
	Result float64 `json:"result" jsonschema:"the result, to 12 significant digits"`
}

func (a answer) String() string { return formatNumber(a.Result, precision) }

// conversion is what a converter tool returns as structured content.
type conversion struct {
	Value      float64 `json:"value" jsonschema:"the amount converted"`
	Unit       string  `json:"unit" jsonschema:"the symbol of its unit"`
	Result     float64 `json:"result" jsonschema:"the same amount in the unit asked for, to 7 significant digits"`
	ResultUnit string  `json:"result_unit" jsonschema:"the symbol of that unit"`
}

func (c conversion) String() string {
	return fmt.Sprintf("%s %s = %s %s", formatNumber(c.Value, convertedDigits), c.Unit,
		formatNumber(c.Result, convertedDigits), c.ResultUnit)
}

// The significant digits answers show; more would show binary noise.
const (
	precision       = 12 // of the calculator
	convertedDigits = 7  // of the converter
)

// reply returns out as the handler of a tool returns it: the text of
// out's String, which is what a model reads (toolscope's client reads
// the text and ignores structured content when there is text), and out
// itself, which the SDK sends as structured content.
func reply[Out fmt.Stringer](out Out) (*mcp.CallToolResult, Out, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.String()}}}, out, nil
}

// representable refuses a result that JSON cannot carry.
func representable(x float64) error {
	switch {
	case math.IsInf(x, 0):
		return errors.New("the result is too large to represent")
	case math.IsNaN(x):
		return errors.New("the result is not a real number")
	}
	return nil
}

// significant rounds x to digits significant digits, which hides binary
// noise such as 0.1 + 0.2 = 0.30000000000000004.
func significant(x float64, digits int) float64 {
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	if x == 0 {
		return 0 // and not -0
	}
	return x
}

// formatNumber writes x with at most digits significant digits, and
// without an exponent unless x is huge or tiny.
func formatNumber(x float64, digits int) string {
	x = significant(x, digits)
	if abs := math.Abs(x); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
