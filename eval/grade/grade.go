package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Grade says whether run did what want expects; when it did not, the
// Result holds the first failure found, in the order the package doc
// gives.
func Grade(want Expect, run Run) Result {
	calls, unreadable := readCalls(run.Calls)
	checks := []func() *failure{
		func() *failure { return finished(run) },
		func() *failure { return unreadable },
		func() *failure { return forbidden(want, calls) },
		func() *failure { return callsMatch(want, calls, schemas(run.Tools), run.Finish) },
		func() *failure { return answered(want, run) },
	}
	for _, check := range checks {
		if f := check(); f != nil {
			return Result{Category: f.category, Message: f.message}
		}
	}
	return Result{Pass: true}
}

// failure is one reason a run fails.
type failure struct {
	category Category
	message  string
}

func fail(c Category, format string, args ...any) *failure {
	return &failure{category: c, message: fmt.Sprintf(format, args...)}
}

// made is a call whose arguments were read.
type made struct {
	n    int // 1-based, in the order the model wrote its calls
	name string
	args map[string]any
}

func (c made) String() string { return fmt.Sprintf("call %d %s", c.n, c.name) }

// readCalls decodes each call's arguments, numbers kept as written, and
// says why the first call that cannot be read cannot.
func readCalls(calls []Call) (read []made, unreadable *failure) {
	for i, c := range calls {
		n := i + 1
		var problem string
		switch {
		case c.Cut:
			problem = "cut off before it closed"
		case c.Invalid != "":
			problem = c.Invalid
		}
		var args map[string]any
		if problem == "" {
			if err := decode(c.Arguments, &args); err != nil || args == nil {
				problem = "its arguments are not a JSON object"
			}
		}
		if problem != "" {
			if unreadable == nil {
				unreadable = fail(ParseError, "call %d%s: %s", n, prefixed(" ", c.Name), problem)
			}
			continue
		}
		read = append(read, made{n: n, name: c.Name, args: args})
	}
	return read, unreadable
}

func prefixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// decode reads JSON keeping numbers as json.Number, so that 5 and 5.0
// stay apart as they do for BFCL's Python checker.
func decode(raw json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// finished fails a run that did not end by itself: it is not the model's
// doing, and the calls it made so far say nothing.
func finished(run Run) *failure {
	switch run.Finish {
	case FinishError:
		return fail(BackendError, "the backend failed: %s", strings.TrimSpace(run.Error))
	case FinishTimeout:
		return fail(Timeout, "the case took longer than the eval allows")
	case FinishCancelled:
		return fail(Cancelled, "the eval was stopped before the case finished")
	}
	return nil
}

func forbidden(want Expect, calls []made) *failure {
	for _, c := range calls {
		if slices.Contains(want.Forbidden, c.name) {
			return fail(ForbiddenCall, "%s: the case forbids calling %s", c, c.name)
		}
	}
	return nil
}

// callsMatch checks the calls made against the calls expected.
func callsMatch(want Expect, calls []made, tools map[string]*schema, finish Finish) *failure {
	if want.NoCall {
		if len(calls) > 0 {
			return fail(ExtraCall, "the case wants no call (an answer or a question), but the model made %s", calls[0])
		}
		return nil
	}
	if len(want.Calls) == 0 {
		return nil
	}
	if len(calls) == 0 {
		return fail(NoCall, "the model made no call; the case wants %s", wanted(want.Calls))
	}
	var left []made
	var f *failure
	if want.Order == OrderStrict {
		left, f = inOrder(want.Calls, calls, tools)
	} else {
		left, f = anyOrder(want.Calls, calls, tools)
	}
	switch {
	case f != nil:
		return f
	case len(left) > 0 && finish == FinishMaxRounds:
		return fail(RoundLimit, "the model was still calling tools at the round limit: %s is one more than the case wants", left[0])
	case len(left) > 0:
		return fail(ExtraCall, "%s is one more call than the case wants (%s)", left[0], wanted(want.Calls))
	}
	return nil
}

// countCalls says how many calls were made, as a person would: "1 call".
func countCalls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// inOrder matches the i-th call with the i-th expected, and returns the
// calls left over.
func inOrder(want []ExpectedCall, calls []made, tools map[string]*schema) ([]made, *failure) {
	for i, w := range want {
		if i >= len(calls) {
			return nil, fail(NoCall, "the model made %s; the case wants %s next", countCalls(len(calls)), w.Name)
		}
		if f := checkCall(w, calls[i], tools[w.Name]); f != nil {
			return nil, f
		}
	}
	return calls[len(want):], nil
}

// anyOrder matches each expected call with the first call not yet matched
// that passes it, as BFCL's parallel_function_checker_no_order does, and
// returns the calls left over.
func anyOrder(want []ExpectedCall, calls []made, tools map[string]*schema) ([]made, *failure) {
	left := slices.Clone(calls)
	for i, w := range want {
		found := slices.IndexFunc(left, func(c made) bool { return checkCall(w, c, tools[w.Name]) == nil })
		if found < 0 {
			return nil, diagnose(w, want[i+1:], left, tools)
		}
		left = slices.Delete(left, found, found+1)
	}
	return left, nil
}

// diagnose says why no call left passes w. The calls that pass another
// expected call still to match are not w's, unless there are more calls
// than those (a call made twice): of the others, the first to the same
// tool says what is wrong, else the first is a wrong tool; with none, w
// was not called.
func diagnose(w ExpectedCall, rest []ExpectedCall, left []made, tools map[string]*schema) *failure {
	var candidates []made
	for _, c := range left {
		if !slices.ContainsFunc(rest, func(r ExpectedCall) bool { return checkCall(r, c, tools[r.Name]) == nil }) {
			candidates = append(candidates, c)
		}
	}
	if len(candidates) == 0 && len(left) > len(rest) {
		candidates = left
	}
	if len(candidates) == 0 {
		return fail(NoCall, "no call to %s as the case wants it: the model's other calls match the case's others", w.Name)
	}
	for _, c := range candidates {
		if c.name == w.Name {
			return checkCall(w, c, tools[w.Name])
		}
	}
	return fail(WrongTool, "%s: the case wants %s", candidates[0], w.Name)
}

// checkCall grades one call against one expected call, in the order of
// BFCL's simple_function_checker: the name, the schema's required
// parameters, each argument given (known, of its type, allowed), then
// each expected argument not given.
func checkCall(w ExpectedCall, c made, tool *schema) *failure {
	if c.name != w.Name {
		return fail(WrongTool, "%s: the case wants %s", c, w.Name)
	}
	if tool != nil {
		for _, name := range tool.Required {
			if _, ok := c.args[name]; !ok {
				return fail(MissingArgument, "%s: the required argument %q is missing", c, name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.args)) {
		if f := checkArgument(w, c, tool, name); f != nil {
			return f
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.Args)) {
		if _, given := c.args[name]; !given && !w.Args[name].Optional {
			return fail(MissingArgument, "%s: the argument %q is missing; the case wants %s", c, name, w.Args[name].describe())
		}
	}
	return nil
}

func checkArgument(w ExpectedCall, c made, tool *schema, name string) *failure {
	value := c.args[name]
	expected, listed := w.Args[name]
	var param *schema
	if tool != nil {
		if !tool.takes(name) {
			return fail(ExtraArgument, "%s: %q is not a parameter of %s", c, name, c.name)
		}
		param = tool.Properties[name]
	}
	if w.Args != nil && !listed {
		return fail(ExtraArgument, "%s: the argument %q is not one the case expects", c, name)
	}
	if problem := typeProblem(param, value, expected); problem != "" {
		return fail(WrongType, "%s: argument %q: %s", c, name, problem)
	}
	if listed && !expected.allows(value) {
		return fail(WrongValue, "%s: argument %q is %s; the case wants %s", c, name, show(value), expected.describe())
	}
	return nil
}

// answered checks the end of the run: an answer where the case wants one,
// holding the text it wants.
func answered(want Expect, run Run) *failure {
	if run.Finish == FinishMaxRounds && (want.NoCall || len(want.AnswerContains) > 0) {
		return fail(RoundLimit, "the run reached its round limit without an answer")
	}
	answer := strings.ToLower(run.Answer)
	for _, text := range want.AnswerContains {
		if !strings.Contains(answer, strings.ToLower(text)) {
			return fail(WrongAnswer, "the answer does not contain %q", text)
		}
	}
	return nil
}

// wanted lists expected calls' names: "send_mail, then schedule_meeting".
func wanted(calls []ExpectedCall) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return "a call to " + strings.Join(names, " and ")
}

// show writes a value as JSON, cut short past 60 bytes.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 60
	if len(b) > most {
		return string(b[:most]) + "…"
	}
	return string(b)
}
