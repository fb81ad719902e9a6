package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/tools"
)

// BFCLCategories are the categories of the Berkeley Function Calling
// Leaderboard that ReadBFCL reads: the single-turn ones its AST checker
// grades from Python-style calls. An irrelevance case has no possible
// answer: the model must not call.
var BFCLCategories = []string{
	"simple", "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
	"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
}

// bfclCategory reads the category out of an entry's id: "simple_python_3",
// "live_parallel_multiple_0-0-0".
var bfclCategory = regexp.MustCompile(`^(.+?)_[0-9][0-9-]*$`)

// bfclQuestion is one line of a question file, as BFCL writes it.
type bfclQuestion struct {
	ID       string         `json:"id"`
	Question [][]Message    `json:"question"` // turns, each a list of messages
	Function []bfclFunction `json:"function"`
}

type bfclFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// bfclAnswer is one line of a possible_answer file: each expected call is
// an object of one key, the function's name, whose value gives each
// parameter's allowed values ("" among them: it may be left out).
type bfclAnswer struct {
	ID          string                      `json:"id"`
	GroundTruth []map[string]map[string]any `json:"ground_truth"`
}

// ReadBFCL reads a BFCL question file and its possible_answer file (""
// for the irrelevance categories, which have none) into a suite, one case
// per question: its messages, its functions as inline tools (BFCL's types
// "dict", "float", "tuple" and "any" become JSON Schema's), and the
// ground truth as expected calls in any order, compared as BFCL's AST
// checker compares them. A line of another shape is refused, naming the
// file, the line and the field.
func ReadBFCL(questions, answers string) (*Suite, error) {
	var qs []lineOf[bfclQuestion]
	if err := readLines(questions, &qs); err != nil {
		return nil, err
	}
	var as []lineOf[bfclAnswer]
	if answers != "" {
		if err := readLines(answers, &as); err != nil {
			return nil, err
		}
	}
	truth := map[string]lineOf[bfclAnswer]{}
	for _, a := range as {
		truth[a.value.ID] = a
	}
	s := &Suite{File: questions, Name: strings.TrimSuffix(filepath.Base(questions), filepath.Ext(questions))}
	asked := map[string]int{}
	var errs []error
	if len(qs) == 0 {
		errs = append(errs, &Error{File: questions, Line: 1, Field: "(file)", Problem: "holds no question"})
	}
	for _, q := range qs {
		if first, twice := asked[q.value.ID]; twice {
			errs = append(errs, &Error{File: questions, Line: q.line, Field: "id", Problem: fmt.Sprintf("%q is the id of line %d too", q.value.ID, first)})
			continue
		}
		asked[q.value.ID] = q.line
		c, err := bfclCase(q, truth, questions, answers)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Cases = append(s.Cases, c)
	}
	for _, a := range as {
		if _, ok := asked[a.value.ID]; !ok {
			errs = append(errs, &Error{File: answers, Line: a.line, Field: "id", Problem: fmt.Sprintf("%q has no question in %s", a.value.ID, questions)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// lineOf is a line of a JSON Lines file, decoded, and its number.
type lineOf[T any] struct {
	line  int
	value T
}

// readLines decodes each line of a JSON Lines file, refusing fields T
// does not have, numbers kept as written.
func readLines[T any](file string, out *[]lineOf[T]) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	scan := bufio.NewScanner(f)
	scan.Buffer(nil, 16<<20) // a live_multiple line holds a few hundred KiB of functions
	var errs []error
	for n := 1; scan.Scan(); n++ {
		text := bytes.TrimSpace(scan.Bytes())
		if len(text) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(text))
		d.DisallowUnknownFields()
		d.UseNumber()
		var v T
		if err := d.Decode(&v); err != nil {
			errs = append(errs, shapeError(file, n, err))
			continue
		}
		*out = append(*out, lineOf[T]{line: n, value: v})
	}
	if err := scan.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return errors.Join(errs...)
}

// shapeError words a line of a BFCL file that is not of BFCL's shape.
func shapeError(file string, line int, err error) *Error {
	e := &Error{File: file, Line: line, Field: "(line)", Problem: strings.TrimPrefix(err.Error(), "json: ")}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		e.Field = typ.Field
		e.Problem = fmt.Sprintf("must be %s, not a JSON %s", typ.Type, typ.Value)
	}
	if name, ok := strings.CutPrefix(e.Problem, "unknown field "); ok {
		e.Field = strings.Trim(name, `"`)
		e.Problem = "unknown field: not of BFCL's shape"
	}
	return e
}

func bfclCase(q lineOf[bfclQuestion], truth map[string]lineOf[bfclAnswer], questions, answers string) (Case, error) {
	fail := func(field, format string, args ...any) (Case, error) {
		return Case{}, &Error{File: questions, Line: q.line, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	id := q.value.ID
	m := bfclCategory.FindStringSubmatch(id)
	switch {
	case id == "":
		return fail("id", "every entry needs an id")
	case m == nil || !slices.Contains(BFCLCategories, m[1]):
		return fail("id", "%q is not of a category toolscope reads: %s", id, strings.Join(BFCLCategories, ", "))
	case len(q.value.Question) != 1:
		return fail("question", "has %d turns: the categories read are single-turn", len(q.value.Question))
	case len(q.value.Function) == 0 && !strings.HasSuffix(m[1], "irrelevance"):
		return fail("function", "lists no function")
	}
	c := Case{ID: id, Line: q.line, Repeat: 1, Settings: map[string]json.RawMessage{}}
	turn := q.value.Question[0]
	if len(turn) == 0 || turn[len(turn)-1].Role != RoleUser {
		return fail("question[0]", "must end with the user's message")
	}
	if len(turn) == 1 {
		c.Request = turn[0].Content
	} else {
		c.Messages = turn
	}
	for i, fn := range q.value.Function {
		tool, err := bfclTool(fn)
		if err != nil {
			return fail(fmt.Sprintf("function[%d]", i), "%v", err)
		}
		c.Tools.Inline = append(c.Tools.Inline, tool)
	}
	if strings.HasSuffix(m[1], "irrelevance") {
		c.Expect = grade.Expect{NoCall: true}
		return c, nil
	}
	a, ok := truth[id]
	if !ok {
		return fail("id", "%q has no possible answer in %s", id, orNone(answers))
	}
	expect, err := bfclExpect(a.value, c.Tools)
	if err != nil {
		return Case{}, &Error{File: answers, Line: a.line, Field: "ground_truth", Problem: err.Error()}
	}
	c.Expect = expect
	return c, nil
}

func orNone(answers string) string {
	if answers == "" {
		return "a possible_answer file: give one"
	}
	return answers
}

// bfclTool is a BFCL function as an inline tool whose schema is JSON
// Schema.
func bfclTool(fn bfclFunction) (InlineTool, error) {
	var params any
	if err := json.Unmarshal(fn.Parameters, &params); err != nil || params == nil {
		return InlineTool{}, errors.New("parameters: must be a JSON object")
	}
	if err := jsonSchemaTypes(params); err != nil {
		return InlineTool{}, fmt.Errorf("parameters: %w", err)
	}
	schema, err := json.Marshal(params)
	if err != nil {
		return InlineTool{}, err
	}
	t := InlineTool{ToolName: fn.Name, ToolDescription: fn.Description, Schema: schema}
	if err := tools.Check(t); err != nil {
		return InlineTool{}, fmt.Errorf("%s: %w", fn.Name, err)
	}
	return t, nil
}

// bfclTypes are BFCL's Python type names in JSON Schema's: what
// ast_checker.py's PYTHON_TYPE_MAPPING makes of them. "any" has none.
var bfclTypes = map[string]string{
	"string": "string", "integer": "integer", "float": "number", "boolean": "boolean",
	"array": "array", "tuple": "array", "dict": "object", "any": "",
}

// jsonSchemaTypes rewrites, in place, the types of a BFCL schema and of
// the schemas under it (properties, items, additionalProperties).
func jsonSchemaTypes(v any) error {
	s, ok := v.(map[string]any)
	if !ok {
		return errors.New("a schema must be a JSON object")
	}
	if t, ok := s["type"].(string); ok {
		jsonType, known := bfclTypes[t]
		switch {
		case !known:
			return fmt.Errorf("type %q is not one of BFCL's Python types", t)
		case jsonType == "":
			delete(s, "type")
		default:
			s["type"] = jsonType
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if err := jsonSchemaTypes(p); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(map[string]any); ok {
			if err := jsonSchemaTypes(sub); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	return nil
}

// bfclExpect turns a ground truth into expected calls, in any order.
func bfclExpect(a bfclAnswer, offered Tools) (grade.Expect, error) {
	e := grade.Expect{Order: grade.OrderAny}
	if len(a.GroundTruth) == 0 {
		return e, errors.New("lists no call")
	}
	schemas := offered.Schemas()
	for i, call := range a.GroundTruth {
		if len(call) != 1 {
			return e, fmt.Errorf("[%d] must be an object of one key, the function's name; it has %d", i, len(call))
		}
		for name, params := range call {
			if _, ok := schemas[name]; !ok {
				return e, fmt.Errorf("[%d]: %q is not one of the question's functions", i, name)
			}
			args := map[string]grade.Value{}
			for param, allowed := range params {
				v, err := bfclValue(allowed, false)
				if err != nil {
					return e, fmt.Errorf("[%d].%s.%s: %w", i, name, param, err)
				}
				args[param] = v
			}
			e.Calls = append(e.Calls, grade.ExpectedCall{Name: name, Args: args})
		}
	}
	return e, nil
}

// bfclValue turns a parameter's list of allowed values into a Value:
// "" makes it optional; a dict is matched key by key (BFCL's
// dict_checker), each key's value a list of allowed values again, compared
// whole; a list of dicts element by element (list_dict_checker); anything
// else as it is, strings standardized (string_checker, list_checker).
func bfclValue(allowed any, inDict bool) (grade.Value, error) {
	list, ok := allowed.([]any)
	if !ok {
		return grade.Value{}, errors.New("must be a list of the values allowed")
	}
	v := grade.Value{Normalize: true}
	for _, a := range list {
		if a == "" {
			v.Optional = true
		}
		p := grade.Pattern{Literal: a}
		if !inDict {
			var err error
			if p, err = bfclPattern(a); err != nil {
				return v, err
			}
		}
		v.OneOf = append(v.OneOf, p)
	}
	return v, nil
}

// bfclPattern is an allowed value of a parameter: a dict, a list of
// dicts, or a literal.
func bfclPattern(a any) (grade.Pattern, error) {
	switch a := a.(type) {
	case map[string]any:
		fields := map[string]grade.Value{}
		for key, allowed := range a {
			v, err := bfclValue(allowed, true)
			if err != nil {
				return grade.Pattern{}, fmt.Errorf("%s: %w", key, err)
			}
			fields[key] = v
		}
		return grade.Pattern{Fields: fields}, nil
	case []any:
		if len(a) == 0 || !isObject(a[0]) {
			return grade.Pattern{Literal: a}, nil
		}
		elements := make([]grade.Pattern, len(a))
		for i, element := range a {
			p, err := bfclPattern(element)
			if err != nil {
				return grade.Pattern{}, fmt.Errorf("[%d]: %w", i, err)
			}
			elements[i] = p
		}
		return grade.Pattern{Elements: elements}, nil
	}
	return grade.Pattern{Literal: a}, nil
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
