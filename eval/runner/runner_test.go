package runner_test

import (
	"context"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/runs"
)

const mailSuite = `
name: mail
tools: {stubs: [send_mail, cancel_meeting]}
settings: {max_rounds: 3}
cases:
  - id: mail-john
    request: Send an email to john@example.com about tomorrow's standup
    expect:
      calls: [{name: send_mail, args: {to: john@example.com, subject: {regex: "(?i)standup"}, body: {any: true}}}]
  - id: ask-first
    request: Email John about the standup
    expect: {no_call: true, answer_contains: [address]}
`

func mailCall(to string) string {
	return "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"" + to + "\", \"subject\": \"Standup\", \"body\": \"Tomorrow at 9.\"}}\n</tool_call>"
}

func parse(t testing.TB, text string) *suite.Suite {
	t.Helper()
	s, err := suite.Parse("mail.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openAIBase is the settings of an eval against the scripted server.
func openAIBase(server *openaitest.Server) engine.Settings {
	s := engine.Defaults()
	s.Backend, s.OpenAIBaseURL, s.Model = engine.BackendOpenAI, server.URL(), ""
	s.ToolDelay, s.DemoDelay = 0, 0
	return s
}

// collect runs cfg and returns its results in the order reported.
func collect(t testing.TB, ctx context.Context, cfg runner.Config) ([]runner.Result, runner.Summary) {
	t.Helper()
	var got []runner.Result
	cfg.Report = func(r runner.Result) { got = append(got, r) }
	sum, err := runner.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return got, sum
}

// TestScriptedModelGradedExactly runs each case through the hub against a
// model whose replies are known, so that each verdict is: a right call
// passes, a wrong recipient is a wrong value, asking passes no_call, and
// each case is a run of source eval kept by the hub.
func TestScriptedModelGradedExactly(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(
		openaitest.Reply{Text: mailCall("john@example.com")}, openaitest.Reply{Text: "Sent."},
		openaitest.Reply{Text: mailCall("jon@example.com")}, openaitest.Reply{Text: "Sent."},
		openaitest.Reply{Text: "What is John's email address?"},
	)
	hub := runs.NewHub(10)
	defer hub.Close()
	s := parse(t, mailSuite)
	s.Cases[0].Repeat = 2
	got, sum := collect(t, context.Background(), runner.Config{Suites: []*suite.Suite{s}, Base: openAIBase(server), Hub: hub, Parallel: 1})

	want := []struct {
		id       string
		pass     bool
		category grade.Category
	}{{"mail-john", true, ""}, {"mail-john", false, grade.WrongValue}, {"ask-first", true, ""}}
	// One worker: the cases run in the suite's order, repeats together.
	if len(got) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(got), got)
	}
	for i, w := range want {
		r := got[i]
		if r.Case != w.id || r.Pass != w.pass || r.Category != w.category {
			t.Errorf("result %d = %s pass %v %s (%s), want %s pass %v %s", i, r.Case, r.Pass, r.Category, r.Message, w.id, w.pass, w.category)
		}
		run, err := hub.Get(r.RunID)
		if err != nil || run.Source != runs.SourceEval {
			t.Errorf("result %d: run %q: %v, source %q; want a run of source eval", i, r.RunID, err, run.Source)
		}
	}
	if sum.Cases != 3 || sum.Passed != 2 || sum.NotGraded != 0 || sum.NotRun != 0 || sum.Categories[grade.WrongValue] != 1 {
		t.Errorf("summary %+v", sum.Tally)
	}
}
