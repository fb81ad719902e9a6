package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// onlyCall fails the test unless the run made exactly one valid call.
func onlyCall(t *testing.T, r run) *agent.Call {
	t.Helper()
	if len(r.calls) != 1 || r.calls[0].Reason != "" {
		t.Fatalf("calls = %+v, want one valid call", r.calls)
	}
	return r.calls[0]
}

// The calculator and converter answer requests end to end: the agent's
// prompt, the demo's call, the real MCP tool, and the demo's answer.
func TestSums(t *testing.T) {
	t.Parallel()
	tests := []struct {
		request string
		// calls are the tool and arguments of each: the numbers as the
		// request wrote them, in the order of the schema the prompt shows
		// (an MCP client hands toolscope the schema as a map, so sorted).
		calls  string
		answer string
	}{
		{"What is 15 times 27?", `multiply {"a":15,"b":27}`, "15 times 27 is 405."},
		{"what's 15*27", `multiply {"a":15,"b":27}`, "15 times 27 is 405."},
		{"Multiply 1.50 by 4", `multiply {"a":1.50,"b":4}`, "1.50 times 4 is 6."},
		{"What is 1.5 plus 2.25?", `add {"a":1.5,"b":2.25}`, "1.5 plus 2.25 is 3.75."},
		{"What's the sum of 2 and .5?", `add {"a":2,"b":0.5}`, "2 plus 0.5 is 2.5."},
		{"What is 100 - 58?", `subtract {"a":100,"b":58}`, "100 minus 58 is 42."},
		{"Subtract 58 from 100", `subtract {"a":100,"b":58}`, "100 minus 58 is 42."},
		{"What is 10 divided by 4?", `divide {"a":10,"b":4}`, "10 divided by 4 is 2.5."},
		{"What is 22 over 7?", `divide {"a":22,"b":7}`, "22 divided by 7 is 3.14285714286."},
		{"What is the square root of 2?", `sqrt {"number":2}`, "The square root of 2 is 1.41421356237."},
		{"What is 2 to the power of 10?", `power {"base":2,"exponent":10}`, "2 to the power of 10 is 1024."},
		{"2^10", `power {"base":2,"exponent":10}`, "2 to the power of 10 is 1024."},
		{"Round 3.14159 to 2 decimals", `round_number {"decimals":2,"number":3.14159}`, "3.14159 rounded to 2 decimal places is 3.14."},
		{"Round 2.5", `round_number {"number":2.5}`, "2.5 rounded to a whole number is 3."},
		{"Convert 100 °C to Fahrenheit", `celsius_to_fahrenheit {"celsius":100}`, "100 °C is 212 °F."},
		{"What is -40 degrees Celsius in Fahrenheit?", `celsius_to_fahrenheit {"celsius":-40}`, "-40 °C is -40 °F."},
		{"What is 72 F in Celsius?", `fahrenheit_to_celsius {"fahrenheit":72}`, "72 °F is 22.22222 °C."},
		{"How many km is 26.2 miles?", `convert_length {"from_unit":"mi","to_unit":"km","value":26.2}`, "26.2 mi is 42.16481 km."},
		{"Convert 6 feet to centimeters", `convert_length {"from_unit":"ft","to_unit":"cm","value":6}`, "6 ft is 182.88 cm."},
		{"Convert 5 lb to kg", `convert_weight {"from_unit":"lb","to_unit":"kg","value":5}`, "5 lb is 2.267962 kg."},
		{"What is 1,000 times 3?", `multiply {"a":1000,"b":3}`, "1000 times 3 is 3000."},
		{"What is 15 times 27, and 2^10?", `multiply {"a":15,"b":27}; power {"base":2,"exponent":10}`,
			"15 times 27 is 405. 2 to the power of 10 is 1024."},
		{"Convert 5 lb to kg and 100 °C to Fahrenheit", `convert_weight {"from_unit":"lb","to_unit":"kg","value":5}; celsius_to_fahrenheit {"celsius":100}`,
			"5 lb is 2.267962 kg. 100 °C is 212 °F."},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			r := runAgent(t, streamparser.Hermes, offer(t, everyTool...), tt.request)
			var calls []string
			for _, c := range r.calls {
				calls = append(calls, fmt.Sprintf("%s %s%s", c.Name, c.Arguments, c.Reason))
			}
			if got := strings.Join(calls, "; "); got != tt.calls {
				t.Errorf("calls = %s, want %s", got, tt.calls)
			}
			if r.result.Reason != agent.Answered || r.result.Text != tt.answer {
				t.Errorf("answer (%s) = %q, want %q", r.result.Reason, r.result.Text, tt.answer)
			}
			// The model explains that the tool, not it, does the work.
			if !strings.Contains(r.thinking, "won't do it in my head") {
				t.Errorf("thinking %q does not say why it calls the tool", r.thinking)
			}
		})
	}
}

func TestSumErrors(t *testing.T) {
	tests := []struct {
		request string
		answer  string
	}{
		{"What is 10 divided by 0?", "I couldn't work out 10 divided by 0: cannot divide 10 by zero."},
		{"What is the square root of -4?", "I couldn't work out the square root of -4: cannot take the square root of a negative number (-4): it has no real result."},
		{"Convert -500 °C to Fahrenheit", "I couldn't work out -500 °C in Fahrenheit: -500 °C is below absolute zero (-273.15 °C), the lowest temperature there is."},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			r := runAgent(t, streamparser.Hermes, offer(t, everyTool...), tt.request)
			onlyCall(t, r)
			if r.result.Text != tt.answer {
				t.Errorf("answer = %q, want %q", r.result.Text, tt.answer)
			}
			if !strings.Contains(r.thinking, "won't fix that") {
				t.Errorf("thinking %q should see that a retry cannot help", r.thinking)
			}
		})
	}
}

// Without the tool the demo model says so, and makes up no result.
func TestSumsNeedTheirTools(t *testing.T) {
	tests := []struct {
		name    string
		offered []string
		request string
		text    []string
		result  string // must not appear
	}{
		{"no calculator", allTools, "What is 15 times 27?",
			[]string{"can't do arithmetic", "multiply isn't among the tools", "send_mail", `--mcp "toolscope mcp calculator"`}, "405"},
		{"no tools", nil, "What is 2 to the power of 10?",
			[]string{"power isn't among the tools", "no tools at all", "don't work numbers out myself"}, "1024"},
		{"calculator but no converter", calculator, "Convert 5 lb to kg",
			[]string{"can't convert units", "convert_weight isn't", `--mcp "toolscope mcp converter"`}, "2.26"},
		{"another tool of the calculator", []string{"add"}, "What is 15 times 27?",
			[]string{"multiply isn't among the tools", "The tools I have are: add."}, "405"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runAgent(t, streamparser.Hermes, offer(t, tt.offered...), tt.request)
			if len(r.calls) > 0 {
				t.Fatalf("calls = %+v, want none", r.calls)
			}
			for _, s := range tt.text {
				if !strings.Contains(r.result.Text, s) {
					t.Errorf("answer %q does not say %q", r.result.Text, s)
				}
			}
			if strings.Contains(r.result.Text+r.thinking, tt.result) {
				t.Errorf("the demo model made up the result %s:\n%s\n%s", tt.result, r.thinking, r.result.Text)
			}
		})
	}
}

// A tool that an MCP host renamed after its server, because another
// server has a tool of the same name, is found by its suffix.
func TestRenamedTool(t *testing.T) {
	ts := append(offer(t, allTools...), renamed{catalogue["multiply"], "calculator_multiply"})
	r := runAgent(t, streamparser.Hermes, ts, "What is 15 times 27?")
	if c := onlyCall(t, r); c.Name != "calculator_multiply" || string(c.Arguments) != `{"a":15,"b":27}` {
		t.Errorf("call = %s %s, want calculator_multiply {\"a\":15,\"b\":27}", c.Name, c.Arguments)
	}
	if r.result.Text != "15 times 27 is 405." {
		t.Errorf("answer = %q", r.result.Text)
	}
}

// A calculator whose schema names the numbers otherwise gets them under
// its own names, in the order of its schema.
func TestOtherCalculatorsParameters(t *testing.T) {
	type xy struct{ X, Y json.Number }
	schema := json.RawMessage(`{"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}`)
	multiply := tools.Func("multiply", "Multiply x by y.", schema, func(_ context.Context, in xy) (json.Number, error) {
		x, _ := in.X.Float64()
		y, _ := in.Y.Float64()
		return json.Number(strconv.FormatFloat(x*y, 'f', -1, 64)), nil
	})
	r := runAgent(t, streamparser.Hermes, []tools.Tool{multiply}, "What is 15 times 27?")
	if c := onlyCall(t, r); string(c.Arguments) != `{"x":15,"y":27}` {
		t.Errorf("arguments = %s, want x and y", c.Arguments)
	}
	if r.result.Text != "15 times 27 is 405." {
		t.Errorf("answer = %q", r.result.Text)
	}
}

// The demo model writes arguments in the order of the offered schema,
// whatever the order in which it reads their values from the request.
func TestArgumentsInTheSchemasOrder(t *testing.T) {
	type power struct{ Base, Exponent float64 }
	schema := json.RawMessage(`{"type": "object", "properties": {"exponent": {"type": "number"}, "base": {"type": "number"}}}`)
	pow := tools.Func("power", "Raise base to exponent.", schema, func(_ context.Context, in power) (float64, error) {
		return math.Pow(in.Base, in.Exponent), nil
	})
	r := runAgent(t, streamparser.Hermes, []tools.Tool{pow}, "What is 2 to the power of 10?")
	if c := onlyCall(t, r); string(c.Arguments) != `{"exponent":10,"base":2}` {
		t.Errorf("arguments = %s, want the exponent first, as the schema lists it", c.Arguments)
	}
	if r.result.Text != "2 to the power of 10 is 1024." {
		t.Errorf("answer = %q", r.result.Text)
	}
}

// Every request the demo model suggests is one it answers with the tool.
func TestExamples(t *testing.T) {
	for name, s := range skills {
		got := replyTo(t, conversationWith(t, true, everyTool, user(s.example)))
		if len(got.calls) == 0 || got.calls[0].Name != name {
			t.Errorf("%s: the example %q gets %q", name, s.example, got.rawCalls)
		}
	}
}

func TestHelpNamesTheCalculator(t *testing.T) {
	got := replyTo(t, conversationWith(t, true, calculator, user("What can you do?")))
	if n := strings.Count(got.text, "do arithmetic"); n != 1 || !strings.Contains(got.text, "Try:") {
		t.Errorf("reply %q should say once that it can do arithmetic, with an example", got.text)
	}
}

// Whatever the request, the sums read from it are calls of calculator or
// converter tools with every argument set and every number valid JSON.
func FuzzReadSums(f *testing.F) {
	for _, s := range []string{"What is 15 times 27, and 2^10?", "1,000,000 - -.5 over 3", "how many kg in 5 lb to g", "-40 °F in F", "√"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, request string) {
		for _, k := range readSums(request) {
			s := skills[k.name]
			if s.sum == nil || len(k.args) == 0 {
				t.Fatalf("%q: %+v is no sum", request, k)
			}
			for name, v := range k.args {
				if n, ok := v.(json.Number); ok && !json.Valid([]byte(n)) {
					t.Fatalf("%q: %s = %q is not a JSON number", request, name, n)
				}
			}
		}
	})
}
