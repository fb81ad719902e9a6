package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/llm/openai/openaitest"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
)

// TestEvalBundledSuitesOnTheDemo is the first promise: each
// bundled suite runs on the demo model out of the box (the MCP servers it
// names started from this very toolscope) and prints a table and a pass
// rate, saying the demo is scripted. Off a terminal, no progress bar.
func TestEvalBundledSuitesOnTheDemo(t *testing.T) {
	for _, c := range []struct{ suite, graded string }{
		{"stubs.yaml", "of 10 graded"},
		{"calculator.yaml", "of 8 graded"},
		{"tools-stress.yaml", "of 8 graded"},
	} {
		t.Run(c.suite, func(t *testing.T) {
			r := toolscope(t, "", "eval", "../../examples/evals/"+c.suite, "--backend", "demo", "--no-history")
			if r.code != exitOK {
				t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
			}
			for _, want := range []string{"pass rate", "95% interval", "median latency", "tools tok", "(suite settings)", "Pass rate: ", c.graded, "the demo model is scripted"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "Not graded") || strings.Contains(r.stderr, "cases") {
				t.Errorf("cases not graded, or a progress bar off a terminal:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
		})
	}
}

// evalSuite is two cases the scripted server answers one right, one wrong.
const evalSuite = `
name: mail
tools: {stubs: [send_mail]}
cases:
  - id: mail-john
    request: Send an email to john@example.com about tomorrow's standup
    expect:
      calls: [{name: send_mail, args: {to: john@example.com, subject: {any: true}, body: {any: true}}}]
  - id: mail-ana
    request: Send an email to ana@example.com about the report
    expect:
      calls: [{name: send_mail, args: {to: ana@example.com, subject: {any: true}, body: {any: true}}}]
`

func writeSuite(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mail.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scriptedMail answers the suite's cases: john's right, then ana's
// mail sent to john.
func scriptedMail(t *testing.T) *openaitest.Server {
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: mailCall}, openaitest.Reply{Text: "Sent."},
		openaitest.Reply{Text: mailCall}, openaitest.Reply{Text: "Sent."})
	return server
}

// TestEvalJSONJUnitAndMinPass grades against a scripted model, so each
// verdict is known: --json gives one line per case then the summary,
// --junit the same in JUnit XML, and --min-pass turns the 50% into exit 1.
// The runs are kept in the history, of source eval.
func TestEvalJSONJUnitAndMinPass(t *testing.T) {
	server := scriptedMail(t)
	dir := t.TempDir()
	junitPath := filepath.Join(dir, "eval.xml")
	r := toolscopeWithEnv(t, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}, "eval", writeSuite(t, evalSuite),
		"--backend", "openai", "--openai-base-url", server.URL(), "--parallel", "1", "--json",
		"--junit", junitPath, "--min-pass", "0.9", "--data-dir", filepath.Join(dir, "history"))
	if r.code != exitError || !strings.Contains(r.stderr, "the pass rate 50% is below --min-pass 90%") {
		t.Fatalf("exit code %d, want 1 with the reason; stderr:\n%s", r.code, r.stderr)
	}

	type line struct {
		ID       string          `json:"id"`
		Pass     *bool           `json:"pass"`
		Category string          `json:"category"`
		RunID    string          `json:"run_id"`
		Cell     json.RawMessage `json:"cell"`
		Message  string          `json:"message"`
		Summary  *struct {
			Cases    int     `json:"cases"`
			Passed   int     `json:"passed"`
			PassRate float64 `json:"pass_rate"`
		} `json:"summary"`
	}
	var lines []line
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a JSON line: %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 2 cases and the summary:\n%s", len(lines), r.stdout)
	}
	john, ana, sum := lines[0], lines[1], lines[2]
	if john.ID != "mail-john" || john.Pass == nil || !*john.Pass || john.RunID == "" || string(john.Cell) != "{}" {
		t.Errorf("first line %+v: want mail-john passing, with its run and its cell", john)
	}
	if ana.ID != "mail-ana" || ana.Pass == nil || *ana.Pass || ana.Category != "wrong_value" || !strings.Contains(ana.Message, `"to"`) {
		t.Errorf("second line %+v: want mail-ana failing with a wrong value of to", ana)
	}
	if sum.Summary == nil || sum.Summary.Cases != 2 || sum.Summary.Passed != 1 || sum.Summary.PassRate != 0.5 {
		t.Errorf("last line %+v: want the summary of 1 passed of 2", sum.Summary)
	}

	var report struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(data, &report); err != nil {
		t.Fatalf("JUnit file does not parse: %v\n%s", err, data)
	}
	cases := report.Suite.Cases
	if report.Tests != 2 || report.Failures != 1 || len(cases) != 2 || cases[0].Failure != nil || cases[1].Failure == nil || cases[1].Failure.Type != "wrong_value" {
		t.Errorf("JUnit report %+v, want 2 tests, mail-ana failing:\n%s", report, data)
	}

	history, err := store.Open(filepath.Join(dir, "history"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer history.Close()
	kept, err := history.Find("", 0)
	if err != nil || len(kept) != 2 || kept[0].Source != runs.SourceEval {
		t.Errorf("history holds %+v (%v): want the 2 runs, of source eval", kept, err)
	}
}

// TestEvalRefusesBadInput: a bad suite and a bad matrix value are each
// refused before anything runs, naming where.
func TestEvalRefusesBadInput(t *testing.T) {
	bad := writeSuite(t, "cases:\n  - id: x\n    reqest: hi\n    expect: {no_call: true}\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"suite", []string{"eval", bad, "--backend", "demo"}, "mail.yaml:3: cases[0].reqest: unknown field"},
		{"dialect", []string{"eval", "../../examples/evals/stubs.yaml", "--backend", "demo", "--dialects", "hermes,klingon"}, `--dialects "klingon"`},
		{"distractors", []string{"eval", "../../examples/evals/stubs.yaml", "--backend", "demo", "--distractors", "0,5000"}, "--distractors 5000 must be from 0 to 1190"},
		{"no suite", []string{"eval", "--backend", "demo"}, "needs one suite or more"},
		{"mcp flag", []string{"eval", "../../examples/evals/stubs.yaml", "--backend", "demo", "--mcp", "toolscope mcp calculator"}, "a suite names the MCP servers its cases offer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := toolscope(t, "", c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit code %d (want %d), stderr lacks %q:\n%s", r.code, exitUsage, c.want, r.stderr)
			}
		})
	}
}

// TestEvalBFCLFiles: a BFCL question file given as a suite is read with
// its answers from possible_answer/ beside it, and graded as BFCL
// grades: the scripted model answers the first question right and the
// second not at all.
func TestEvalBFCLFiles(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(
		openaitest.Reply{Text: "<tool_call>\n{\"name\": \"geometry.triangle_area\", \"arguments\": {\"base\": 10, \"height\": 5}}\n</tool_call>"},
		openaitest.Reply{Text: "The area is 25 square units."},
		openaitest.Reply{Text: "I cannot work that out."},
	)
	r := toolscopeWithEnv(t, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}, "eval", "../../eval/suite/testdata/bfcl/BFCL_v4_simple_python.json",
		"--backend", "openai", "--openai-base-url", server.URL(), "--parallel", "1", "--json", "--no-history")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"id":"simple_python_0"`) || !strings.Contains(lines[0], `"pass":true`) ||
		!strings.Contains(lines[1], `"id":"simple_python_1"`) || !strings.Contains(lines[1], `"category":"no_call"`) {
		t.Fatalf("want simple_python_0 passing, simple_python_1 no_call, then the summary:\n%s", r.stdout)
	}
}

// TestEvalCtrlCKeepsTheResultsSoFar: Ctrl-C while a case waits on the
// model ends it cancelled, starts no other, and still prints the summary
// of what ran, with how many did not, then exits 130.
func TestEvalCtrlCKeepsTheResultsSoFar(t *testing.T) {
	server := openaitest.New(t)
	server.Reply(openaitest.Reply{Text: mailCall}, openaitest.Reply{Text: "Sent."},
		openaitest.Reply{Text: "Let me see", Hold: true})
	path := writeSuite(t, strings.Replace(evalSuite, "  - id: mail-ana\n", "  - id: mail-ana\n    repeat: 3\n", 1))
	cmd := exec.Command(binary, "eval", path, "--backend", "openai", "--openai-base-url", server.URL(), "--parallel", "1", "--json", "--no-history")
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL=", "OPENAI_API_KEY=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for give := time.Now().Add(time.Minute); len(server.Requests()) < 3; { // the second case's request is held
		if time.Now().After(give) {
			cmd.Process.Kill()
			t.Fatalf("the eval never reached its second case; stderr:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit code %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	want := `"cases":2,"passed":1,"not_graded":1,`
	if len(lines) != 3 || !strings.Contains(lines[1], `"category":"cancelled"`) || !strings.Contains(lines[2], want) || !strings.Contains(lines[2], `"planned":4,"not_run":2`) {
		t.Fatalf("want a pass, a cancelled case, and the summary with 2 not run:\n%s", stdout.String())
	}
}
