package demo

import (
	"strings"

	"github.com/toolscope/toolscope/tools"
)

// skill is what the demo model learnt about one tool: toolscope's built-in
// tools, and those of its calculator and converter MCP servers.
type skill struct {
	ability string // what the tool lets the model do: "send emails"
	example string // a request the demo model answers with the tool
	// server is the toolscope MCP server that provides the tool; "" for
	// the built-in tools.
	server string
	// operands are the arguments of a calculator or converter tool, by
	// the names the model fills them under, in the order a request gives
	// their values: the base, then the exponent. Calls are written in the
	// order of the offered schema, not this one (see conversation.places).
	// Nil for the built-in tools, whose arguments the plan fills by name.
	operands []string
	// sum says what a calculator or converter call works out, from its
	// operands as text ("" for one left out): "15 times 27". Nil for the
	// other tools.
	sum func(v []string) string
}

var skills = map[string]skill{
	tools.SendMail: {ability: "send emails", example: "Send an email to john@example.com about tomorrow's standup"},
	tools.ScheduleMeeting: {ability: "schedule meetings",
		example: "Schedule a meeting with alice@example.com tomorrow at 10:00"},
	tools.CancelMeeting: {ability: "cancel meetings", example: "Cancel the standup meeting on Friday"},

	"add": arithmetic("What is 1.5 plus 2.25?", func(v []string) string { return v[0] + " plus " + v[1] }),
	"subtract": arithmetic("What is 100 minus 58?",
		func(v []string) string { return v[0] + " minus " + v[1] }),
	"multiply": arithmetic("What is 15 times 27?", func(v []string) string { return v[0] + " times " + v[1] }),
	"divide": arithmetic("What is 10 divided by 4?",
		func(v []string) string { return v[0] + " divided by " + v[1] }),
	"sqrt": {operands: []string{"number"}, ability: calculating, server: "calculator",
		example: "What is the square root of 2?",
		sum:     func(v []string) string { return "the square root of " + v[0] }},
	"power": {operands: []string{"base", "exponent"}, ability: calculating, server: "calculator",
		example: "What is 2 to the power of 10?",
		sum:     func(v []string) string { return v[0] + " to the power of " + v[1] }},
	"round_number": {operands: []string{"number", "decimals"}, ability: calculating, server: "calculator",
		example: "Round 3.14159 to 2 decimals", sum: rounding},

	"celsius_to_fahrenheit": {operands: []string{"celsius"}, ability: converting, server: "converter",
		example: "Convert 100 °C to Fahrenheit",
		sum:     func(v []string) string { return v[0] + " °C in Fahrenheit" }},
	"fahrenheit_to_celsius": {operands: []string{"fahrenheit"}, ability: converting, server: "converter",
		example: "What is 72 F in Celsius?",
		sum:     func(v []string) string { return v[0] + " °F in Celsius" }},
	"convert_length": conversion("How many km is 26.2 miles?"),
	"convert_weight": conversion("Convert 5 lb to kg"),
}

const (
	calculating = "do arithmetic"
	converting  = "convert units"
)

// arithmetic is a calculator tool of two numbers, a and b.
func arithmetic(example string, sum func(v []string) string) skill {
	return skill{operands: []string{"a", "b"}, ability: calculating, server: "calculator", example: example, sum: sum}
}

// conversion is a converter tool between units of one quantity.
func conversion(example string) skill {
	return skill{operands: []string{"value", "from_unit", "to_unit"}, ability: converting, server: "converter",
		example: example, sum: func(v []string) string { return v[0] + " " + v[1] + " in " + v[2] }}
}

func rounding(v []string) string {
	switch v[1] {
	case "":
		return v[0] + " rounded to a whole number"
	case "1":
		return v[0] + " rounded to 1 decimal place"
	}
	return v[0] + " rounded to " + v[1] + " decimal places"
}

// trainedName is the name the model learnt for an offered tool: the
// offered name itself, or the name an MCP host prefixed with its server's
// ("calculator_multiply" is multiply). It is "" for a tool the model does
// not know.
func trainedName(offered string) string {
	if _, ok := skills[offered]; ok {
		return offered
	}
	found := ""
	for name := range skills {
		if strings.HasSuffix(offered, "_"+name) && len(name) > len(found) {
			found = name // the longest, so that the answer never depends on map order
		}
	}
	return found
}
