package suite

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/eval/grade"
)

func TestLoadTheExample(t *testing.T) {
	s, err := Load("testdata/stubs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "stubs" || len(s.Cases) != 4 {
		t.Fatalf("suite %q with %d cases, want stubs with 4", s.Name, len(s.Cases))
	}
	mail, meeting, who, weather := s.Cases[0], s.Cases[1], s.Cases[2], s.Cases[3]
	if mail.ID != "mail-john" || mail.Line != 11 || mail.Repeat != 2 || string(mail.Settings["max_rounds"]) != "4" {
		t.Errorf("mail-john = id %q, line %d, repeat %d, settings %s", mail.ID, mail.Line, mail.Repeat, mail.Settings)
	}
	if meeting.Repeat != 5 || string(meeting.Settings["dialect"]) != `"pythonic"` || string(meeting.Settings["max_rounds"]) != "4" {
		t.Errorf("a case's settings and repeat go over the suite's: repeat %d, settings %s", meeting.Repeat, meeting.Settings)
	}
	if len(who.Messages) != 2 || who.Messages[1].Role != RoleUser || !who.Expect.NoCall {
		t.Errorf("who-is-john = %+v", who)
	}
	if len(weather.Tools.Stubs) != 0 || len(weather.Tools.Inline) != 1 || string(weather.Tools.Inline[0].Result) != `{"temperature":18,"unit":"celsius"}` {
		t.Errorf("a case's tools replace the suite's: %+v", weather.Tools)
	}

	// The expectations read are the ones grading applies.
	made := grade.Run{Finish: grade.FinishAnswered, Answer: "Sent!", Tools: mail.Tools.Schemas(), Calls: []grade.Call{{Name: "send_mail",
		Arguments: json.RawMessage(`{"to": "john@example.com", "subject": "Stand-up tomorrow", "body": "See you."}`)}}}
	if got := grade.Grade(mail.Expect, made); !got.Pass {
		t.Errorf("the expected call fails: %+v", got)
	}
	made.Calls[0].Arguments = json.RawMessage(`{"to": "john@example.com", "subject": "Lunch", "body": "See you."}`)
	if got := grade.Grade(mail.Expect, made); got.Category != grade.WrongValue {
		t.Errorf("a subject the regex does not match: %+v", got)
	}
}

func TestJSONIsASuiteToo(t *testing.T) {
	s, err := Parse("suite.json", []byte(`{
	"tools": {"stubs": ["send_mail"]},
	"cases": [{"id": "a", "request": "Mail john@example.com",
		"expect": {"calls": [{"name": "send_mail", "args": {"to": "john@example.com", "subject": {"any": true}}}]}}]
}`))
	if err != nil || len(s.Cases) != 1 || s.Cases[0].Expect.Calls[0].Name != "send_mail" {
		t.Fatalf("Parse = %+v, %v", s, err)
	}
}

// base is a valid suite; each bad one below changes one thing.
const base = `tools:
  stubs: [send_mail]
cases:
  - id: a
    request: Mail John
    expect:
      calls:
        - name: send_mail
          args:
            to: john@example.com
`

func TestBadSuitesAreRefusedWhereTheyAreWrong(t *testing.T) {
	cases := []struct {
		name string
		old  string // replaced in base by new
		new  string
		want string // the error, or a part of it
	}{
		{"an unknown top-level field", "cases:", "casez:", "s.yaml:3: casez: unknown field: use name, description, settings, repeat, tools, cases"},
		{"an unknown case field", "    request:", "    reqest:", "s.yaml:5: cases[0].reqest: unknown field"},
		{"an unknown expectation", "      calls:", "      call:", "s.yaml:7: cases[0].expect.call: unknown field"},
		{"a wrong type", "  - id: a", "  - id: a\n    repeat: lots", `s.yaml:5: cases[0].repeat: must be a whole number, not the string "lots"`},
		{"a repeat out of range", "  - id: a", "  - id: a\n    repeat: 0", "s.yaml:5: cases[0].repeat: 0 must be from 1 to 1000"},
		{"a number for a string", "    request: Mail John", "    request: 42", "s.yaml:5: cases[0].request: must be a string, not the number 42"},
		{"a case without expectations", "    expect:\n      calls:\n        - name: send_mail\n          args:\n            to: john@example.com\n", "",
			"s.yaml:4: cases[0].expect: a case needs expectations"},
		{"empty expectations", "    expect:\n      calls:\n        - name: send_mail\n          args:\n            to: john@example.com\n", "    expect: {order: strict}\n",
			"s.yaml:6: cases[0].expect: has no expectation"},
		{"a case without a request", "    request: Mail John\n", "", "s.yaml:4: cases[0].request: a case needs a request, or messages"},
		{"a case without an id", "  - id: a\n    request", "  - request", "s.yaml:4: cases[0].id: every case needs an id"},
		{"two cases of one id", "cases:\n", "cases:\n  - {id: a, request: x, expect: {no_call: true}}\n", `s.yaml:5: cases[1].id: "a" is the id of the case on line 4 too`},
		{"an expected tool not offered", "        - name: send_mail", "        - name: send_mial",
			`s.yaml:8: cases[0].expect.calls[0].name: no tool offered is named "send_mial": it offers send_mail`},
		{"a forbidden tool not offered", "      calls:", "      forbidden: [cancel_meting]\n      calls:",
			`s.yaml:7: cases[0].expect.forbidden[0]: no tool offered is named "cancel_meting"`},
		{"an argument the tool lacks", "            to:", "            too:",
			`s.yaml:10: cases[0].expect.calls[0].args.too: send_mail has no parameter "too": its parameters are to, subject, body`},
		{"a regex that does not compile", "to: john@example.com", `to: {regex: "(john"}`,
			"s.yaml:10: cases[0].expect.calls[0].args.to.regex: does not compile: error parsing regexp: missing closing )"},
		{"a matcher with two kinds", "to: john@example.com", `to: {regex: "john", any: true}`,
			"s.yaml:10: cases[0].expect.calls[0].args.to: give one of exact, one_of, regex, number, any, fields"},
		{"a misspelt matcher", "to: john@example.com", `to: {regx: "john"}`, "s.yaml:10: cases[0].expect.calls[0].args.to.regx: unknown field"},
		{"a tolerance without a number", "to: john@example.com", `to: {exact: 1, tolerance: 0.5}`, "args.to.tolerance: goes with number"},
		{"calls and no call", "      calls:", "      no_call: true\n      calls:", "cases[0].expect.no_call: a case wants calls or no call, not both"},
		{"an unknown stub", "stubs: [send_mail]", "stubs: [send_email]", `s.yaml:2: tools.stubs[0]: "send_email" is not a stub tool: use cancel_meeting, schedule_meeting, send_mail`},
		{"an unknown setting", "tools:", "settings: {max_round: 3}\ntools:", `s.yaml:1: settings.max_round: is not a setting: use backend, model, mode, dialect, think, max_rounds, tool_delay_ms, tools_top_k, retriever`},
		{"a setting out of bounds", "tools:", "settings: {max_rounds: 99}\ntools:", "s.yaml:1: settings.max_rounds: 99 must be from 1 to 50"},
		{"a setting of the wrong type", "tools:", "settings: {max_rounds: four}\ntools:", `s.yaml:1: settings.max_rounds: "four" must be a whole number`},
		{"an unknown dialect", "    request:", "    settings: {dialect: klingon}\n    request:", `s.yaml:5: cases[0].settings.dialect: "klingon" is unknown: use`},
		{"a server's setting", "tools:", "settings: {tool_timeout_ms: 1000}\ntools:", "s.yaml:1: settings.tool_timeout_ms: 1000 is the server's setting: a request cannot change it"},
		{"a history that does not end with the user", "    request: Mail John", "    messages: [{role: user, content: hi}, {role: assistant, content: hello}]",
			"s.yaml:5: cases[0].messages: must end with the user's turn"},
		{"a message of an unknown role", "    request: Mail John", "    messages: [{role: tool, content: hi}]", `s.yaml:5: cases[0].messages[0].role: "tool" is not a role`},
		{"an inline tool with a bad schema", "  stubs: [send_mail]", "  stubs: [send_mail]\n  inline: [{name: x, parameters: {type: array}}]",
			`s.yaml:3: tools.inline[0]: tool "x": parameters schema must have "type": "object"`},
		{"an inline tool named as a stub", "  stubs: [send_mail]", "  stubs: [send_mail]\n  inline: [{name: send_mail, parameters: {type: object}}]",
			`s.yaml:3: tools.inline[0].name: "send_mail" is offered twice`},
		{"a bad MCP server", "  stubs: [send_mail]", "  stubs: [send_mail]\n  mcp: [\"\"]", "s.yaml:3: tools.mcp[0]: empty MCP server"},
		{"YAML that does not parse", "    request: Mail John", "    request: [Mail John", "s.yaml:5: (syntax): did not find expected ',' or ']'"},
		{"YAML with a tab", "    request: Mail John", "    request: Mail John\n\tx: 1", "s.yaml:5: (syntax): found a tab character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.old) {
				t.Fatalf("base lacks %q", c.old)
			}
			s, err := Parse("s.yaml", []byte(strings.Replace(base, c.old, c.new, 1)))
			if err == nil || s != nil {
				t.Fatalf("Parse took it: %+v", s)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%v\nwant it to hold:\n%s", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "s.yaml" || e.Line == 0 {
				t.Errorf("the error is not an *Error naming the file and line: %#v", err)
			}
		})
	}
}

func TestBaseIsValid(t *testing.T) {
	if _, err := Parse("s.yaml", []byte(base)); err != nil {
		t.Fatal(err)
	}
}

func TestEveryProblemIsReported(t *testing.T) {
	bad := strings.NewReplacer("cases:", "cases:\n  - {id: b, request: 1, expect: {no_call: true}}", "send_mail\n          args", "send_mial\n          args").Replace(base)
	_, err := Parse("s.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "cases[0].request") || !strings.Contains(err.Error(), "cases[1].expect.calls[0].name") {
		t.Fatalf("want both problems, got %v", err)
	}
}

func TestArgumentsAnOpenSchemaTakesAreExpected(t *testing.T) {
	open := strings.Replace(base, "  stubs: [send_mail]", "  inline: [{name: send_mail, parameters: {type: object, properties: {to: {type: string}}, additionalProperties: true}}]", 1)
	if _, err := Parse("s.yaml", []byte(strings.Replace(open, "            to:", "            cc: x\n            to:", 1))); err != nil {
		t.Errorf("an argument additionalProperties allows is refused: %v", err)
	}
}

func TestMCPToolsAreCheckedWhenTheyRun(t *testing.T) {
	s, err := Parse("s.yaml", []byte(strings.Replace(base, "stubs: [send_mail]", `mcp: ["toolscope mcp calculator"]`, 1)))
	if err != nil {
		t.Fatalf("a call to a tool an MCP server may have is refused: %v", err)
	}
	if len(s.Cases[0].Tools.MCP) != 1 || s.Cases[0].Tools.MCP[0].Name != "calculator" {
		t.Errorf("MCP = %+v", s.Cases[0].Tools.MCP)
	}
}

func TestInlineToolsReturnTheirResult(t *testing.T) {
	s, err := Load("testdata/stubs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	weather := s.Cases[3].Tools.Inline[0]
	if got, err := weather.Call(t.Context(), json.RawMessage(`{"city": "Paris"}`)); err != nil || got != `{"temperature":18,"unit":"celsius"}` {
		t.Errorf("Call = %s, %v", got, err)
	}
	weather.Result = nil
	if got, _ := weather.Call(t.Context(), nil); got != `{"ok": true}` {
		t.Errorf("without a result, Call = %s", got)
	}
}

func TestJSONIndentedWithTabsIsRefusedWhereItIsWrong(t *testing.T) {
	json := "{\n\t\"tools\": {\"stubs\": [\"send_mail\"]},\n\t\"cases\": [\n\t\t{\"id\": \"a\", \"request\": \"x\",\n\t\t \"expect\": {\"no_call\": true, \"bogus\": 1}}\n\t]\n}\n"
	_, err := Parse("s.json", []byte(json))
	if err == nil || err.Error() != "s.json:5: cases[0].expect.bogus: unknown field: use calls, order, no_call, forbidden, answer_contains" {
		t.Errorf("Parse = %v", err)
	}
}
