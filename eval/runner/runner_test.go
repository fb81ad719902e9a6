package runner_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
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

// TestBackendFailingMidEval: once the server stops answering, the cases
// left are backend errors, not failures of the model, and the summary
// counts them apart.
func TestBackendFailingMidEval(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: mailCall("john@example.com")}, openaitest.Reply{Text: "Sent."})
	// Then nothing is queued: the server answers 500.
	hub := runs.NewHub(10)
	defer hub.Close()
	s := parse(t, mailSuite)
	got, sum := collect(t, context.Background(), runner.Config{Suites: []*suite.Suite{s}, Base: openAIBase(server), Hub: hub, Parallel: 1})
	if len(got) != 2 || !got[0].Pass || got[1].Category != grade.BackendError || got[1].RunID == "" {
		t.Fatalf("results %+v: want a pass, then a backend error with its run", got)
	}
	if sum.Cases != 2 || sum.NotGraded != 1 || sum.Graded() != 1 || sum.PassRate() != 1 {
		t.Errorf("summary %+v: want 1 of 1 graded passing, 1 not graded", sum.Tally)
	}
}

// TestCancelKeepsResultsSoFar: when the eval is stopped, the case under
// way ends cancelled, none starts after it, and the summary says how many
// did not run.
func TestCancelKeepsResultsSoFar(t *testing.T) {
	server := openaitest.New(t)
	held := make(chan struct{})
	server.Reply(openaitest.Reply{Text: mailCall("john@example.com")}, openaitest.Reply{Text: "Sent."},
		openaitest.Reply{Text: "Let me think", Hold: true, Ended: held})
	hub := runs.NewHub(10)
	defer hub.Close()
	s := parse(t, mailSuite)
	s.Cases[0].Repeat = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The second case's request is held open: stop the eval then.
		for len(server.Requests()) < 3 {
			runtime.Gosched()
		}
		cancel()
	}()
	got, sum := collect(t, ctx, runner.Config{Suites: []*suite.Suite{s}, Base: openAIBase(server), Hub: hub, Parallel: 1})
	<-held
	if len(got) != 2 || !got[0].Pass || got[1].Category != grade.Cancelled {
		t.Fatalf("results %+v: want a pass, then the case under way cancelled", got)
	}
	if sum.Planned != 6 || sum.Cases != 2 || sum.NotRun != 4 || sum.NotGraded != 1 {
		t.Errorf("summary planned %d, cases %d, not run %d, not graded %d: want 6, 2, 4, 1", sum.Planned, sum.Cases, sum.NotRun, sum.NotGraded)
	}
}

// TestTimeoutIsItsOwnCategory: a case that outlasts the eval's limit is a
// timeout, not graded, and the eval goes on.
func TestTimeoutIsItsOwnCategory(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: "Let me think", Hold: true}, openaitest.Reply{Text: "What is John's address?"})
	hub := runs.NewHub(10)
	defer hub.Close()
	s := parse(t, mailSuite)
	s.Cases = s.Cases[1:]
	s.Cases[0].Repeat = 2
	// The held reply never comes, whatever the limit; the limit is only
	// to be well past what the second case takes on a busy machine (one
	// took 209 ms under -race beside the other packages' tests).
	got, sum := collect(t, context.Background(), runner.Config{Suites: []*suite.Suite{s}, Base: openAIBase(server), Hub: hub, Parallel: 1, Timeout: 2 * time.Second})
	if len(got) != 2 || got[0].Category != grade.Timeout || !got[1].Pass {
		t.Fatalf("results %+v: want a timeout, then a pass", got)
	}
	if sum.NotGraded != 1 || sum.PassRate() != 1 {
		t.Errorf("summary %+v", sum.Tally)
	}
}

// TestMatrixCells multiplies the axes, first slowest, and refuses a value
// the settings table refuses before anything runs.
func TestMatrixCells(t *testing.T) {
	m := runner.Matrix{Dialects: []string{"hermes", "pythonic"}, ToolsTopK: []string{"0", "auto"}, Distractors: []int{0, 10}}
	cells, err := m.Cells(engine.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cells {
		names = append(names, c.String())
	}
	want := []string{
		"dialect=hermes tools_top_k=0 distractors=0", "dialect=hermes tools_top_k=0 distractors=10",
		"dialect=hermes tools_top_k=auto distractors=0", "dialect=hermes tools_top_k=auto distractors=10",
		"dialect=pythonic tools_top_k=0 distractors=0", "dialect=pythonic tools_top_k=0 distractors=10",
		"dialect=pythonic tools_top_k=auto distractors=0", "dialect=pythonic tools_top_k=auto distractors=10",
	}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("cells:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	_, err = runner.Matrix{Dialects: []string{"klingon"}, Modes: []string{"fast"}, Distractors: []int{5000}}.Cells(engine.Defaults())
	for _, want := range []string{`"klingon"`, `"fast"`, "5000"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %s", err, want)
		}
	}
}

// TestDemoAcrossDialectsWithDistractors runs a suite against the demo
// model in every cell: each run offers the case's tools plus the cell's
// distractors, in the cell's dialect, and the demo, which calls the stub
// tools in whatever dialect the prompt teaches, passes in each.
func TestDemoAcrossDialectsWithDistractors(t *testing.T) {
	base := engine.Defaults()
	base.Backend, base.ToolDelay, base.DemoDelay = engine.BackendDemo, 0, 0
	cells, err := runner.Matrix{Dialects: []string{"hermes", "pythonic"}, Distractors: []int{0, 10}}.Cells(base)
	if err != nil {
		t.Fatal(err)
	}
	hub := runs.NewHub(10)
	defer hub.Close()
	s := parse(t, mailSuite)
	s.Cases = s.Cases[:1]
	got, sum := collect(t, context.Background(), runner.Config{Suites: []*suite.Suite{s}, Cells: cells, Base: base, Hub: hub, Parallel: 4})
	if len(got) != 4 || sum.Passed != 4 {
		t.Fatalf("results %+v: want 4 passes", got)
	}
	for _, r := range got {
		run, err := hub.Get(r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		info := transcript.Fold(run.Snapshot().Events).Run
		if len(info.Tools) != 2+r.Cell.Distractors || info.Dialect != r.Cell.Settings[0].Value {
			t.Errorf("cell %s: run offered %d tools in %s", r.Cell, len(info.Tools), info.Dialect)
		}
		if r.ToolsTokens <= 0 || r.PromptTokens <= r.ToolsTokens {
			t.Errorf("cell %s: prompt tokens %d, tools block %d: want a block that is part of the prompt", r.Cell, r.PromptTokens, r.ToolsTokens)
		}
	}
	if a, b := sum.Cells[0].Mean(sum.Cells[0].ToolsTokens), sum.Cells[1].Mean(sum.Cells[1].ToolsTokens); b <= a {
		t.Errorf("tools block %v tokens with 10 distractors, %v without: want more", b, a)
	}
}
