package grade

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
)

// mailSchema is send_mail's: to and subject required, body and cc not.
const mailSchema = `{"type": "object", "properties": {
	"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"},
	"cc": {"type": "array", "items": {"type": "string"}}, "priority": {"type": "integer"},
	"weight": {"type": "number"}, "urgent": {"type": "boolean"}},
	"required": ["to", "subject"]}`

var offered = map[string]json.RawMessage{
	"send_mail":      json.RawMessage(mailSchema),
	"cancel_meeting": json.RawMessage(`{"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}`),
}

func call(name, args string) Call { return Call{Name: name, Arguments: json.RawMessage(args)} }

func mail(args map[string]Value) ExpectedCall { return ExpectedCall{Name: "send_mail", Args: args} }

func near(n, tolerance float64) Value { return Value{Near: &n, Tolerance: tolerance} }

// toJohn is the expectation most cases share.
var toJohn = Expect{Calls: []ExpectedCall{mail(map[string]Value{
	"to": Exactly("john@example.com"), "subject": {Any: true}, "body": {Any: true, Optional: true}})}}

func TestGrade(t *testing.T) {
	cases := []struct {
		name    string
		want    Expect
		run     Run
		cat     Category // "" for a pass
		message string   // a part of the message
	}{
		{"the call expected", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishAnswered}, "", ""},
		{"the backend failed", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishError, Error: "connection refused\n"},
			BackendError, "the backend failed: connection refused"},
		{"out of time", toJohn, Run{Finish: FinishTimeout}, Timeout, "longer than the eval allows"},
		{"stopped", toJohn, Run{Finish: FinishCancelled}, Cancelled, "stopped"},
		{"a call the parser could not read", toJohn,
			Run{Calls: []Call{{Invalid: "the JSON ends early"}, call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishAnswered},
			ParseError, "call 1: the JSON ends early"},
		{"a call cut off", toJohn,
			Run{Calls: []Call{{Name: "send_mail", Cut: true}}, Finish: FinishCutOff}, ParseError, "call 1 send_mail: cut off"},
		{"arguments that are not an object", toJohn,
			Run{Calls: []Call{call("send_mail", `["john@example.com"]`)}}, ParseError, "not a JSON object"},
		{"a forbidden call", Expect{Calls: toJohn.Calls, Forbidden: []string{"cancel_meeting"}},
			Run{Calls: []Call{call("cancel_meeting", `{"title": "Standup"}`), call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}},
			ForbiddenCall, "call 1 cancel_meeting: the case forbids"},
		{"no call", toJohn, Run{Answer: "Sure!", Finish: FinishAnswered}, NoCall, "the model made no call; the case wants a call to send_mail"},
		{"the wrong tool", toJohn,
			Run{Calls: []Call{call("cancel_meeting", `{"title": "Standup"}`)}}, WrongTool, "call 1 cancel_meeting: the case wants send_mail"},
		{"a required argument missing", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com"}`)}, Tools: offered}, MissingArgument, `the required argument "subject" is missing`},
		{"an expected argument missing", Expect{Calls: []ExpectedCall{mail(map[string]Value{
			"to": {Any: true}, "subject": {Any: true}, "body": {Any: true}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi"}`)}}, MissingArgument, `the argument "body" is missing`},
		{"an optional argument left out", Expect{Calls: []ExpectedCall{mail(map[string]Value{
			"to": {Any: true}, "subject": {Any: true}, "body": {Any: true, Optional: true}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi"}`)}}, "", ""},
		{"an argument the schema lacks", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "bcc": "x@y.z"}`)}, Tools: offered},
			ExtraArgument, `"bcc" is not a parameter of send_mail`},
		{"an argument an open schema takes", Expect{Calls: []ExpectedCall{{Name: "search"}}},
			Run{Calls: []Call{call("search", `{"q": "x", "lang": "en"}`)}, Tools: map[string]json.RawMessage{
				"search": json.RawMessage(`{"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": {"type": "string"}}`)}}, "", ""},
		{"an argument a schema without properties takes", Expect{Calls: []ExpectedCall{{Name: "search"}}},
			Run{Calls: []Call{call("search", `{"q": "x"}`)}, Tools: map[string]json.RawMessage{"search": json.RawMessage(`{"type": "object"}`)}}, "", ""},
		{"an argument a closed schema refuses", Expect{Calls: []ExpectedCall{{Name: "search"}}},
			Run{Calls: []Call{call("search", `{"q": "x", "lang": "en"}`)}, Tools: map[string]json.RawMessage{
				"search": json.RawMessage(`{"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false}`)}},
			ExtraArgument, `"lang" is not a parameter of search`},
		{"an argument the case does not expect", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi", "priority": 1}`)}, Tools: offered},
			ExtraArgument, `"priority" is not one the case expects`},
		{"no args: any the schema allows", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "priority": 1}`)}, Tools: offered}, "", ""},
		{"a string for an integer", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "priority": "1"}`)}, Tools: offered},
			WrongType, `argument "priority": want integer, got a string "1"`},
		{"a fraction for an integer", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "priority": 1.0}`)}, Tools: offered},
			WrongType, "want integer, got a number 1.0"},
		{"an integer for a number (BFCL: int for float)", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "weight": 2}`)}, Tools: offered}, "", ""},
		{"a boolean for a number", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "weight": true}`)}, Tools: offered},
			WrongType, "want number, got a boolean true"},
		{"an array item of the wrong type", Expect{Calls: []ExpectedCall{{Name: "send_mail"}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "cc": ["x@y.z", 7]}`)}, Tools: offered},
			WrongType, `argument "cc": item 2: want string, got an integer 7`},
		{"array items of the expected items' type (BFCL's nested variable rule)", Expect{Calls: []ExpectedCall{{Name: "sort", Args: map[string]Value{
			"elements": {OneOf: []Pattern{{Literal: []any{"apple", "cherry"}}}}}}}},
			Run{Calls: []Call{call("sort", `{"elements": ["apple", "cherry"]}`)}, Tools: map[string]json.RawMessage{
				"sort": json.RawMessage(`{"type": "object", "properties": {"elements": {"type": "array", "items": {"type": "integer"}}}}`)}}, "", ""},
		{"array items of neither type", Expect{Calls: []ExpectedCall{{Name: "sort", Args: map[string]Value{
			"elements": {OneOf: []Pattern{{Literal: []any{"apple", "cherry"}}}}}}}},
			Run{Calls: []Call{call("sort", `{"elements": ["apple", true]}`)}, Tools: map[string]json.RawMessage{
				"sort": json.RawMessage(`{"type": "object", "properties": {"elements": {"type": "array", "items": {"type": "integer"}}}}`)}},
			WrongType, `argument "elements": item 2: want integer, got a boolean true`},
		{"null where null is allowed (BFCL's variable rule)", Expect{Calls: []ExpectedCall{mail(map[string]Value{
			"to": {Any: true}, "subject": {Any: true}, "priority": {OneOf: []Pattern{{Literal: nil}}}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "priority": null}`)}, Tools: offered}, "", ""},
		{"a wrong value", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "jon@example.com", "subject": "Hi"}`)}},
			WrongValue, `call 1 send_mail: argument "to" is "jon@example.com"; the case wants "john@example.com"`},
		{"one of several", Expect{Calls: []ExpectedCall{mail(map[string]Value{"to": {Any: true},
			"subject": {OneOf: []Pattern{{Literal: "Standup"}, {Literal: "Stand-up"}}}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Stand-up"}`)}}, "", ""},
		{"none of several", Expect{Calls: []ExpectedCall{mail(map[string]Value{"to": {Any: true},
			"subject": {OneOf: []Pattern{{Literal: "Standup"}, {Literal: "Stand-up"}}}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "standup"}`)}},
			WrongValue, `the case wants one of "Standup", "Stand-up"`},
		{"normalized as BFCL does", Expect{Calls: []ExpectedCall{mail(map[string]Value{"to": {Any: true},
			"subject": {OneOf: []Pattern{{Literal: "April 1, 2024"}}, Normalize: true}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "april 1 2024"}`)}}, "", ""},
		{"a regular expression", Expect{Calls: []ExpectedCall{mail(map[string]Value{"to": {Regex: regexp.MustCompile(`@example\.com$`)}, "subject": {Any: true}})}},
			Run{Calls: []Call{call("send_mail", `{"to": "ana@example.org", "subject": "Hi"}`)}},
			WrongValue, `the case wants a match of "@example\\.com$"`},
		{"a number within its tolerance", Expect{Calls: []ExpectedCall{{Name: "send_mail", Args: map[string]Value{
			"to": {Any: true}, "subject": {Any: true}, "weight": near(2.5, 0.1)}}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "weight": 2.58}`)}, Tools: offered}, "", ""},
		{"a number outside its tolerance", Expect{Calls: []ExpectedCall{{Name: "send_mail", Args: map[string]Value{
			"to": {Any: true}, "subject": {Any: true}, "weight": near(2.5, 0.1)}}}},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi", "weight": 2.7}`)}, Tools: offered},
			WrongValue, "the case wants 2.5 ± 0.1"},
		{"an object matched field by field", Expect{Calls: []ExpectedCall{{Name: "book", Args: map[string]Value{
			"room": {OneOf: []Pattern{{Fields: map[string]Value{"size": Exactly("large"), "view": {Optional: true, Any: true}}}}}}}}},
			Run{Calls: []Call{call("book", `{"room": {"size": "large"}}`)}}, "", ""},
		{"an object with a field not expected", Expect{Calls: []ExpectedCall{{Name: "book", Args: map[string]Value{
			"room": {OneOf: []Pattern{{Fields: map[string]Value{"size": Exactly("large")}}}}}}}},
			Run{Calls: []Call{call("book", `{"room": {"size": "large", "floor": 3}}`)}},
			WrongValue, "the case wants an object of the fields expected"},
		{"an extra call", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`), call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishAnswered},
			ExtraCall, "call 2 send_mail is one more call than the case wants"},
		{"a call where the case wants none", Expect{NoCall: true},
			Run{Calls: []Call{call("send_mail", `{"to": "a@b.c", "subject": "Hi"}`)}, Finish: FinishAnswered},
			ExtraCall, "the case wants no call (an answer or a question), but the model made call 1 send_mail"},
		{"no call, and the answer asks", Expect{NoCall: true, AnswerContains: []string{"which"}},
			Run{Answer: "Which John do you mean?", Finish: FinishAnswered}, "", ""},
		{"still calling at the round limit", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`), call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishMaxRounds},
			RoundLimit, "still calling tools at the round limit"},
		{"no answer at the round limit", Expect{Calls: toJohn.Calls, AnswerContains: []string{"sent"}},
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishMaxRounds},
			RoundLimit, "without an answer"},
		{"single-turn: the calls at the round limit pass", toJohn,
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Finish: FinishMaxRounds}, "", ""},
		{"the answer lacks the text", Expect{Calls: toJohn.Calls, AnswerContains: []string{"message id"}},
			Run{Calls: []Call{call("send_mail", `{"to": "john@example.com", "subject": "Hi"}`)}, Answer: "Done.", Finish: FinishAnswered},
			WrongAnswer, `the answer does not contain "message id"`},
		{"the answer holds the text in another case", Expect{AnswerContains: []string{"PARIS"}},
			Run{Answer: "It is Paris.", Finish: FinishAnswered}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Grade(c.want, c.run)
			if got.Pass != (c.cat == "") || got.Category != c.cat || !strings.Contains(got.Message, c.message) {
				t.Errorf("Grade = %+v, want category %q and a message holding %q", got, c.cat, c.message)
			}
		})
	}
}

// parallel are two calls to one tool, as BFCL's parallel category has.
var parallel = Expect{Calls: []ExpectedCall{
	{Name: "weather", Args: map[string]Value{"city": Exactly("Paris")}},
	{Name: "weather", Args: map[string]Value{"city": Exactly("Rome")}},
}}

func TestGradeParallelCalls(t *testing.T) {
	rome, paris, oslo := call("weather", `{"city": "Rome"}`), call("weather", `{"city": "Paris"}`), call("weather", `{"city": "Oslo"}`)
	strict := parallel
	strict.Order = OrderStrict
	cases := []struct {
		name  string
		want  Expect
		calls []Call
		cat   Category
		msg   string
	}{
		{"any order, as written", parallel, []Call{paris, rome}, "", ""},
		{"any order, the other way round", parallel, []Call{rome, paris}, "", ""},
		{"strict order, as written", strict, []Call{paris, rome}, "", ""},
		{"strict order, the other way round", strict, []Call{rome, paris}, WrongValue, `call 1 weather: argument "city" is "Rome"; the case wants "Paris"`},
		{"one city wrong", parallel, []Call{rome, oslo}, WrongValue, `call 2 weather: argument "city" is "Oslo"; the case wants "Paris"`},
		{"one call of two", parallel, []Call{rome}, NoCall, "no call to weather"},
		{"one call of two, in strict order", strict, []Call{paris}, NoCall, "the model made 1 call; the case wants weather next"},
		{"one city twice", parallel, []Call{rome, rome}, WrongValue, `call 1 weather: argument "city" is "Rome"; the case wants "Paris"`},
		{"three calls for two", parallel, []Call{oslo, rome, paris}, ExtraCall, "call 1 weather is one more call"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Grade(c.want, Run{Calls: c.calls, Finish: FinishAnswered})
			if got.Pass != (c.cat == "") || got.Category != c.cat || !strings.Contains(got.Message, c.msg) {
				t.Errorf("Grade = %+v, want category %q and a message holding %q", got, c.cat, c.msg)
			}
		})
	}
}

func TestStandardizeIsBFCLs(t *testing.T) {
	// standardize_string("April 1, 2024") and its neighbours, as BFCL's
	// ast_checker.py writes them.
	for in, want := range map[string]string{
		"April 1, 2024":    "april12024",
		"New_York-City./*": "newyorkcity",
		"it's 2^3":         `it"s23`,
	} {
		if got := standardize(in); got != want {
			t.Errorf("standardize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWilson(t *testing.T) {
	// Known values of the 95% Wilson score interval (81 of 263 is
	// Wikipedia's worked example).
	cases := []struct {
		passed, total int
		low, high     float64
	}{
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{9, 10, 0.5958, 0.9821},
		{1, 1, 0.2065, 1},
		{81, 263, 0.2553, 0.3662},
		{0, 0, 0, 1},
	}
	for _, c := range cases {
		low, high := Wilson(c.passed, c.total)
		if math.Abs(low-c.low) > 5e-5 || math.Abs(high-c.high) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.passed, c.total, low, high, c.low, c.high)
		}
	}
}

func TestOnlyRunsThatFinishedAreGraded(t *testing.T) {
	for _, c := range []Category{BackendError, Timeout, Cancelled} {
		if c.Graded() {
			t.Errorf("%s counts as a verdict on the model", c)
		}
	}
	for _, c := range []Category{ParseError, NoCall, WrongValue, RoundLimit, WrongAnswer} {
		if !c.Graded() {
			t.Errorf("%s does not count as a verdict on the model", c)
		}
	}
}
