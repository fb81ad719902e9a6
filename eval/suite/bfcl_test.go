package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/eval/grade"
)

// readSample reads a category of the sample in testdata/bfcl, written in
// BFCL's format (v4 file names).
func readSample(t *testing.T, category string) map[string]Case {
	t.Helper()
	questions := filepath.Join("testdata", "bfcl", "BFCL_v4_"+category+".json")
	answers := filepath.Join("testdata", "bfcl", "possible_answer", "BFCL_v4_"+category+".json")
	if strings.HasSuffix(category, "irrelevance") {
		answers = ""
	}
	s, err := ReadBFCL(questions, answers)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Case{}
	for _, c := range s.Cases {
		byID[c.ID] = c
	}
	return byID
}

// calls makes the calls a model wrote, each "name {arguments}".
func calls(written ...string) []grade.Call {
	var out []grade.Call
	for _, w := range written {
		name, args, _ := strings.Cut(w, " ")
		out = append(out, grade.Call{Name: name, Arguments: json.RawMessage(args)})
	}
	return out
}

// TestBFCLSampleGradesAsBFCLDoes grades model outputs on the sample as
// BFCL's ast_checker.py would; bfcl is the error_type it gives, for
// reference.
func TestBFCLSampleGradesAsBFCLDoes(t *testing.T) {
	cases := []struct {
		category, id string
		calls        []grade.Call
		want         grade.Category // "" for a pass
		bfcl         string
	}{
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10, "height": 5}`), "", `"" allows unit left out`},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10, "height": 5, "unit": "Units"}`), "", "standardize_string"},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10, "height": 5, "unit": "cm"}`), grade.WrongValue, "value_error:string"},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": "10", "height": 5}`), grade.WrongType, "type_error:simple"},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10}`), grade.MissingArgument, "simple_function_checker:missing_required"},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10, "height": 5, "color": "red"}`), grade.ExtraArgument, "simple_function_checker:unexpected_param"},
		{"simple_python", "simple_python_0", calls(`geometry.triangle_area {"base": 10, "height": 5}`, `geometry.triangle_area {"base": 10, "height": 5}`), grade.ExtraCall, "simple_function_checker:wrong_count"},
		{"simple_python", "simple_python_0", nil, grade.NoCall, "simple_function_checker:wrong_count"},
		{"simple_python", "simple_python_1", calls(`finance.compound_interest {"principal": 1000, "rate": 0.05, "years": 3}`), "", "int accepted for float"},
		{"simple_python", "simple_python_1", calls(`finance.compound_interest {"principal": 1000.0, "rate": 0.05, "years": 3.0}`), grade.WrongType, "type_error:simple"},
		{"multiple", "multiple_0", calls(`city.population {"city": "nyc", "year": 2020}`), "", "standardize_string"},
		{"multiple", "multiple_0", calls(`geometry.triangle_area {"base": 1, "height": 2}`), grade.WrongTool, "simple_function_checker:wrong_func_name"},
		{"multiple", "multiple_0", calls(`city.population {"city": "NYC"}`), grade.MissingArgument, "simple_function_checker:missing_optional"},
		{"parallel", "parallel_0", calls(`weather.forecast {"location": "Rome, Italy", "days": 3}`, `weather.forecast {"location": "Paris", "days": 3}`), "", "no order"},
		{"parallel", "parallel_0", calls(`weather.forecast {"location": "Paris", "days": 3}`), grade.NoCall, "parallel_function_checker_no_order:wrong_count"},
		{"parallel", "parallel_0", calls(`weather.forecast {"location": "Paris", "days": 3}`, `weather.forecast {"location": "Rome", "days": 4}`), grade.WrongValue, "parallel_function_checker_no_order:cannot_find_match"},
		{"parallel_multiple", "parallel_multiple_0", calls(`geometry.triangle_area {"base": 4, "height": 6}`, `math.primes_below {"limit": 20, "skip": [3, 2]}`), "", "list_checker"},
		{"parallel_multiple", "parallel_multiple_0", calls(`geometry.triangle_area {"base": 4, "height": 6, "unit": "cm"}`, `math.primes_below {"limit": 20, "skip": [2, 3]}`), grade.WrongValue, `[""]: unit must be left out`},
		{"parallel_multiple", "parallel_multiple_0", calls(`geometry.triangle_area {"base": 4, "height": 6}`, `math.primes_below {"limit": 20, "skip": ["2", "3"]}`), grade.WrongType, "type_error:nested"},
		{"irrelevance", "irrelevance_0", nil, "", "no call"},
		{"irrelevance", "irrelevance_0", calls(`determine_body_mass_index {"weight": 10, "height": 5}`), grade.ExtraCall, "irrelevance_error:decoder_success"},
		{"live_simple", "live_simple_0-0-0", calls(`ChaFod {"drink_id": "1234", "new_preferences": {"size": "large", "temperature": "cold"}}`), "", "dict_checker: optional key"},
		{"live_simple", "live_simple_0-0-0", calls(`ChaFod {"drink_id": "1234", "new_preferences": {"size": "Large", "temperature": "cold", "sweetness_level": "regular"}}`), "", "dict_checker standardizes"},
		{"live_simple", "live_simple_0-0-0", calls(`ChaFod {"drink_id": "1234", "new_preferences": {"size": "large", "temperature": "cold", "milk": "oat"}}`), grade.WrongValue, "value_error:dict_key"},
		{"live_simple", "live_simple_0-0-0", calls(`ChaFod {"drink_id": 1234, "new_preferences": {"size": "large", "temperature": "cold"}}`), grade.WrongType, "type_error:simple"},
		{"live_multiple", "live_multiple_0-0-0", calls(`web_search {"query": "berkeley function-calling leaderboard", "depth": null}`), "", "null allowed (variable rule)"},
		{"live_multiple", "live_multiple_0-0-0", calls(`web_search {"query": "Berkeley function calling leaderboard"}`), "", `"" allows depth left out`},
		{"live_parallel", "live_parallel_0-0-0", calls(`weather.forecast {"location": "Berlin, Germany"}`, `order_food {"restaurant": "Uber Pitada", "items": [{"item": "burgers", "quantity": 5}, {"item": "chicken wings", "quantity": 6}]}`), "", "list_dict_checker"},
		{"live_parallel", "live_parallel_0-0-0", calls(`weather.forecast {"location": "Berlin, Germany"}`, `order_food {"restaurant": "Uber Pitada", "items": [{"item": "chicken wings", "quantity": 6}, {"item": "burgers", "quantity": 5}]}`), grade.WrongValue, "list_dict_checker: in order"},
		{"live_parallel_multiple", "live_parallel_multiple_0-0-0", calls(`city.population {"city": "Tokyo", "year": 2020}`, `city.population {"city": "Tokyo", "year": 2010}`), "", "no order"},
		{"live_parallel_multiple", "live_parallel_multiple_0-0-0", calls(`city.population {"city": "Tokyo", "year": 2020}`, `city.population {"city": "Tokyo", "year": 2020}`), grade.WrongValue, "cannot_find_match"},
		{"live_irrelevance", "live_irrelevance_0-0-0", nil, "", "no call"},
	}
	for _, c := range cases {
		t.Run(c.id+" "+c.bfcl, func(t *testing.T) {
			sample, ok := readSample(t, c.category)[c.id]
			if !ok {
				t.Fatalf("no case %s", c.id)
			}
			got := grade.Grade(sample.Expect, grade.Run{Calls: c.calls, Answer: "Sorry, I can't.", Finish: grade.FinishAnswered, Tools: sample.Tools.Schemas()})
			if got.Pass != (c.want == "") || got.Category != c.want {
				t.Errorf("Grade = %+v, want %q (BFCL: %s)", got, c.want, c.bfcl)
			}
		})
	}
}

func TestBFCLSampleReadsIntoCases(t *testing.T) {
	for _, category := range BFCLCategories {
		if category == "simple" {
			continue // v3's name; v4 has simple_python
		}
		t.Run(category, func(t *testing.T) {
			if len(readSample(t, category)) == 0 {
				t.Error("no cases")
			}
		})
	}
	live := readSample(t, "live_simple")["live_simple_0-0-0"]
	if live.Request != "" || len(live.Messages) != 2 || live.Messages[0].Role != RoleSystem {
		t.Errorf("a question with a system message is a history: %+v", live.Messages)
	}
	schema := string(live.Tools.Inline[0].Schema)
	if strings.Contains(schema, `"dict"`) || !strings.Contains(schema, `"type":"object"`) {
		t.Errorf("BFCL's dict is not JSON Schema's object: %s", schema)
	}
	simple := readSample(t, "simple_python")["simple_python_1"]
	if !strings.Contains(string(simple.Tools.Inline[0].Schema), `"principal":{"description":"The amount invested.","type":"number"}`) {
		t.Errorf("BFCL's float is not JSON Schema's number: %s", simple.Tools.Inline[0].Schema)
	}
	if simple.Request == "" || simple.Repeat != 1 || !readSample(t, "irrelevance")["irrelevance_0"].Expect.NoCall {
		t.Errorf("simple_python_1 = %+v", simple)
	}
}

// write puts text in a file of the test's own directory.
func write(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBFCLFilesOfAnotherShapeAreRefused(t *testing.T) {
	const question = `{"id": "simple_python_0", "question": [[{"role": "user", "content": "Area of a 10 by 5 triangle?"}]], "function": [{"name": "area", "description": "Area.", "parameters": {"type": "dict", "properties": {"base": {"type": "integer"}}, "required": ["base"]}}]}`
	const answer = `{"id": "simple_python_0", "ground_truth": [{"area": {"base": [10]}}]}`
	cases := []struct {
		name, questions, answers, want string
	}{
		{"an unknown field", strings.Replace(question, `"function"`, `"functions"`, 1), answer, "q.json:1: functions: unknown field"},
		{"a field of another type", strings.Replace(question, `"content": "Area of a 10 by 5 triangle?"`, `"content": 7`, 1), answer, "q.json:1: question.content: must be string, not a JSON number"},
		{"a line that is not JSON", "\n" + question[:40], answer, "q.json:2: (line): unexpected EOF"},
		{"a category not read", strings.Replace(question, "simple_python_0", "multi_turn_base_0", 1), answer, `q.json:1: id: "multi_turn_base_0" is not of a category toolscope reads`},
		{"a type not BFCL's", strings.Replace(question, `"integer"`, `"String"`, 1), answer, `q.json:1: function[0]: parameters: base: type "String" is not one of BFCL's Python types`},
		{"no question", "\n", answer, "q.json:1: (file): holds no question"},
		{"one id twice", question + "\n" + question, answer, `q.json:2: id: "simple_python_0" is the id of line 1 too`},
		{"no answer", question, strings.Replace(answer, "simple_python_0", "simple_python_1", 1), `q.json:1: id: "simple_python_0" has no possible answer`},
		{"an answer without its question", question, answer + "\n" + strings.Replace(answer, "simple_python_0", "simple_python_9", 1), `a.json:2: id: "simple_python_9" has no question`},
		{"a ground truth of two functions in one", question, strings.Replace(answer, `{"area": {"base": [10]}}`, `{"area": {"base": [10]}, "volume": {}}`, 1), "a.json:1: ground_truth: [0] must be an object of one key"},
		{"allowed values not in a list", question, strings.Replace(answer, `[10]`, `10`, 1), "a.json:1: ground_truth: [0].area.base: must be a list of the values allowed"},
		{"a ground truth of another function", question, strings.Replace(answer, `"area"`, `"volume"`, 1), `a.json:1: ground_truth: [0]: "volume" is not one of the question's functions`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ReadBFCL(write(t, "q.json", c.questions), write(t, "a.json", c.answers))
			if err == nil {
				t.Fatalf("ReadBFCL took it: %+v", s)
			}
			if !strings.Contains(filepathBase(err.Error()), c.want) {
				t.Errorf("error:\n%v\nwant it to hold:\n%s", err, c.want)
			}
		})
	}
}

// filepathBase strips the directories from the path each line of an
// error starts with: the files are in a temporary directory.
func filepathBase(s string) string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, ".json:"); i >= 0 {
			line = filepath.Base(line[:i]) + line[i:]
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
