package demo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A sum is a computation that toolscope's calculator or converter does:
// "What is 15 times 27?", "Convert 5 lb to kg". The demo model leaves the
// working out to the tools, as a model should: it does no arithmetic of
// its own.

// number is a number as a request writes it: "15", "-3.5", ".5",
// "1,000".
const number = `(-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+))`

// sumRE compiles a pattern in which # stands for a number.
func sumRE(pattern string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + strings.ReplaceAll(pattern, "#", number))
}

// found is a sum found in a request: the call that works it out, and
// where the request asks for it.
type found struct {
	call       call
	start, end int
}

// readSums reads the sums a request asks for, in order, as calls of the
// tools the model learnt for them: "What is 15 times 27, and 2^10?" asks
// for two.
func readSums(request string) []call {
	var calls []call
	// More than maxCalls get a question (see plan.tooBig), so reading on
	// would only cost time: each look scans the rest of the request.
	for len(calls) <= maxCalls {
		f, ok := firstSum(request)
		if !ok {
			return calls
		}
		calls = append(calls, f.call)
		request = request[f.end:]
	}
	return calls
}

// firstSum finds the sum that text asks for first. Of two readings that
// start at the same place, the one tried first wins.
func firstSum(text string) (found, bool) {
	first, ok := found{start: len(text) + 1}, false
	keep := func(f found, matched bool) {
		if matched && f.start < first.start {
			first, ok = f, true
		}
	}
	keep(readTemperature(text))
	for _, q := range quantities {
		keep(q.read(text))
	}
	for _, calc := range calculations {
		keep(calc.read(text))
	}
	return first, ok
}

// calculation is a way a request asks for arithmetic; args are the
// submatches of re that are the tool's operands, in their order.
type calculation struct {
	tool string
	re   *regexp.Regexp
	args []int
}

// calculations are tried in order: "2 ** 10" is a power, not a product.
var calculations = []calculation{
	{"power", sumRE(`#\s*(?:\^|\*\*|to the power of|to the power|raised to(?: the power of)?)\s*#`), []int{1, 2}},
	{"sqrt", sumRE(`(?:\bsquare root of|\bsqrt|√)\s*\(?\s*#`), []int{1}},
	{"round_number", sumRE(`\bround\s+#\s+to\s+#\s+(?:decimal places?|decimals?|places?|digits?)\b`), []int{1, 2}},
	{"round_number", sumRE(`#\s+rounded\s+to\s+#\s+(?:decimal places?|decimals?|places?|digits?)\b`), []int{1, 2}},
	{"round_number", sumRE(`\bround\s+#`), []int{1}},
	{"multiply", sumRE(`#\s*(?:times|multiplied by|\*|×)\s*#`), []int{1, 2}},
	{"multiply", sumRE(`#\s+x\s+#`), []int{1, 2}},
	{"multiply", sumRE(`\bmultiply\s+#\s+(?:by|and|with)\s+#`), []int{1, 2}},
	{"multiply", sumRE(`\bproduct of\s+#\s+and\s+#`), []int{1, 2}},
	{"divide", sumRE(`#\s*(?:divided by|over|/|÷)\s*#`), []int{1, 2}},
	{"divide", sumRE(`\bdivide\s+#\s+by\s+#`), []int{1, 2}},
	{"add", sumRE(`#\s*(?:plus|\+)\s*#`), []int{1, 2}},
	{"add", sumRE(`\badd\s+#\s+(?:and|to|plus)\s+#`), []int{1, 2}},
	{"add", sumRE(`\bsum of\s+#\s+and\s+#`), []int{1, 2}},
	// A bare '-' needs spaces around it: 2026-12-01 is a date.
	{"subtract", sumRE(`#\s+(?:minus|-|−)\s+#`), []int{1, 2}},
	{"subtract", sumRE(`\bsubtract\s+#\s+from\s+#`), []int{2, 1}},
	{"subtract", sumRE(`\bdifference between\s+#\s+and\s+#`), []int{1, 2}},
}

func (calc calculation) read(text string) (found, bool) {
	m := calc.re.FindStringSubmatchIndex(text)
	if m == nil {
		return found{}, false
	}
	values := make([]any, len(calc.args))
	for i, g := range calc.args {
		values[i] = numberValue(text[m[2*g]:m[2*g+1]])
	}
	return found{sumCall(calc.tool, values...), m[0], m[1]}, true
}

// sumCall is a call of a calculator or converter tool with the values of
// its operands, in order.
func sumCall(tool string, values ...any) call {
	args := make(map[string]any, len(values))
	for i, v := range values {
		args[skills[tool].operands[i]] = v
	}
	return call{name: tool, args: args}
}

// numberValue keeps a number as the request wrote it, as far as JSON
// allows: 26.2 stays 26.2, .5 becomes 0.5 and 1,000 becomes 1000.
func numberValue(s string) json.Number {
	s = strings.ReplaceAll(s, ",", "")
	if json.Valid([]byte(s)) {
		return json.Number(s)
	}
	f, _ := strconv.ParseFloat(s, 64) // the number pattern only matches numbers
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

var (
	temperatureRE = sumRE(`#\s*(?:°\s*|degrees?\s+)?(celsius|centigrade|fahrenheit|c|f)\b`)
	toScaleRE     = regexp.MustCompile(`(?i)\b(?:to|in|into)\s+(?:°\s*|degrees?\s+)?(celsius|centigrade|fahrenheit|c|f)\b`)
)

// readTemperature reads "100 °C to Fahrenheit" and "72 F in Celsius". A
// temperature with no scale to convert it to goes to the other one.
func readTemperature(text string) (found, bool) {
	m := temperatureRE.FindStringSubmatchIndex(text)
	if m == nil {
		return found{}, false
	}
	from, end := isFahrenheit(text[m[4]:m[5]]), m[1]
	if to := toScaleRE.FindStringSubmatchIndex(text[end:]); to != nil {
		if isFahrenheit(text[end+to[2]:end+to[3]]) == from {
			return found{}, false // nothing to convert
		}
		end += to[1]
	}
	tool := "celsius_to_fahrenheit"
	if from {
		tool = "fahrenheit_to_celsius"
	}
	return found{sumCall(tool, numberValue(text[m[2]:m[3]])), m[0], end}, true
}

func isFahrenheit(scale string) bool { return strings.HasPrefix(strings.ToLower(scale), "f") }

// quantity is what a converter tool converts: units of length or weight.
type quantity struct {
	tool string
	// symbols are the units the converter takes. Each has a submatch of
	// its own in the patterns, in this order.
	symbols []string
	// value is a number and its unit; target the unit to convert to, after
	// the value ("to km") or before it ("how many km is …").
	value, target, howMany *regexp.Regexp
}

// newQuantity makes a quantity from pairs of a unit's symbol and a
// pattern of its names.
func newQuantity(tool string, units ...string) quantity {
	q := quantity{tool: tool}
	var names []string
	for i := 0; i < len(units); i += 2 {
		q.symbols = append(q.symbols, units[i])
		names = append(names, "("+units[i+1]+")")
	}
	unit := `(?:` + strings.Join(names, "|") + `)\b`
	q.value = sumRE(`#\s*` + unit)
	q.target = sumRE(`\b(?:to|in|into)\s+` + unit)
	q.howMany = sumRE(`\bhow many\s+` + unit)
	return q
}

// Only whole names: "t" for tonne or "st" for stone would turn up in "1st".
var quantities = []quantity{
	newQuantity("convert_length",
		"mm", `mm|millimet(?:er|re)s?`, "cm", `cm|centimet(?:er|re)s?`, "m", `m|met(?:er|re)s?`,
		"km", `km|kms|kilomet(?:er|re)s?`, "in", `in|inch(?:es)?`, "ft", `ft|foot|feet`,
		"yd", `yds?|yards?`, "mi", `mi|miles?`),
	newQuantity("convert_weight",
		"mg", `mg|milligram(?:me)?s?`, "g", `g|gram(?:me)?s?`, "kg", `kgs?|kilos?|kilogram(?:me)?s?`,
		"t", `tonnes?|metric tons?`, "oz", `oz|ounces?`, "lb", `lbs?|pounds?`, "st", `stones?`),
}

// read reads "5 lb to kg", "26.2 miles in km" and "how many km is 26.2
// miles".
func (q quantity) read(text string) (found, bool) {
	m := q.value.FindStringSubmatchIndex(text)
	if m == nil {
		return found{}, false
	}
	end := m[1]
	var to string
	if t := q.target.FindStringSubmatchIndex(text[end:]); t != nil {
		to, end = q.unit(t, 1), end+t[1]
	} else if h := q.howMany.FindStringSubmatchIndex(text); h != nil {
		to = q.unit(h, 1)
	} else {
		return found{}, false
	}
	return found{sumCall(q.tool, numberValue(text[m[2]:m[3]]), q.unit(m, 2), to), m[0], end}, true
}

// unit is the symbol of the unit whose submatch matched, of those from
// submatch first on.
func (q quantity) unit(m []int, first int) string {
	for i, s := range q.symbols {
		if m[2*(first+i)] >= 0 {
			return s
		}
	}
	return "" // not reached: a unit matched
}

// sumText says what a call of a calculator or converter tool works out:
// "15 times 27".
func sumText(k call) string {
	s := skills[trainedName(k.name)]
	v := make([]string, len(s.operands))
	for i, p := range s.operands {
		if a, ok := k.args[p]; ok {
			v[i] = display(a)
		}
	}
	return s.sum(v)
}

// sumSentence answers with the result of a calculator or converter call:
// "15 times 27 is 405.", "100 °C is 212 °F.".
func (o outcome) sumSentence() string {
	if o.err != "" {
		return fmt.Sprintf("I couldn't work out %s: %s.", sumText(o.call), o.err)
	}
	result := o.result
	if v, ok := o.fields["result"]; ok {
		result = display(v)
	}
	if from, to, ok := strings.Cut(result, " = "); ok {
		return from + " is " + to + "."
	}
	return capitalize(sumText(o.call)) + " is " + result + "."
}
