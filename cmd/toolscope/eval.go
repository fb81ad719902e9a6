package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
)

// evalFlags are eval's own flags: the matrix, and what to do with the
// results.
type evalFlags struct {
	matrix   runner.Matrix
	parallel int
	timeout  time.Duration
	junit    string
	minPass  float64
}

// defaultParallel runs a few cases at once: enough to keep a local
// model's server busy, few enough not to swamp one that runs one request
// at a time.
const defaultParallel = 4

// evalCommand runs suites of cases against the model and grades them.
func evalCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Tool retrieval's flags are matrix axes here, lists under the same
	// names (see define).
	c := newCommand("eval", "[flags] SUITE…", stderr, engine.SettingToolsTopK, engine.SettingRetriever)
	// An eval measures the model, not how a person watches it: no pause
	// between tokens or in the stub tools, unless a flag asks for one.
	c.settings.DemoDelay, c.settings.ToolDelay = 0, 0
	for _, name := range []string{"demo-delay", "tool-delay"} {
		if f := c.fs.Lookup(name); f != nil {
			f.DefValue = f.Value.String() // as -h shows it
		}
	}
	c.keepRuns = store.DefaultKeepRuns
	f := evalFlags{parallel: defaultParallel}
	f.define(c)
	paths, code, ok := c.parse(args, operands{"one suite" + severalOperands, "e.g. toolscope eval examples/evals/stubs.yaml"})
	if !ok {
		return code
	}
	if problem := f.check(c.settings); problem != "" {
		fmt.Fprintf(stderr, "toolscope eval: %s\n", problem)
		return exitUsage
	}
	suites, ok := loadSuites(paths, stderr)
	if !ok {
		return exitUsage
	}
	cells, err := f.matrix.Cells(c.settings)
	if err != nil {
		return reportMatrix(err, stderr)
	}
	c.warnUnused()
	e, code, ok := c.start(ctx)
	if !ok {
		return code
	}
	defer closeMCP(e)
	if err := checkModels(ctx, e, f.matrix.Models); err != nil {
		fmt.Fprintf(stderr, "toolscope eval: %v\n", err)
		return exitError
	}
	hub := runs.NewHub(f.parallel, runs.Limits{MaxLive: f.parallel})
	if history := c.openHistory(hub, stderr); history != nil {
		defer closeHistory(history) // after hub.Close has ended the runs
	}
	stopTraces, code, ok := c.traceRuns(ctx, hub, stderr)
	if !ok {
		return code
	}
	defer stopTraces() // after hub.Close has ended the runs
	defer hub.Close()
	return f.run(ctx, c, e, hub, runner.Config{Suites: suites, Cells: cells, Base: e.Settings(), Options: selfAsMCP(),
		Hub: hub, Parallel: f.parallel, Timeout: f.timeout, Log: c.mcpLog(stderr)}, stdout, stderr)
}

func (f *evalFlags) define(c *command) {
	m := &f.matrix
	c.add(groupModel, "models", "a,b", "run every case with each of these models (a matrix axis)", listValue{&m.Models})
	c.add(groupModel, "modes", "raw,chat", "run every case in each of these modes (a matrix axis)", listValue{&m.Modes})
	c.add(groupLoop, "dialects", "a,b", "run every case in each of these dialects (a matrix axis)", listValue{&m.Dialects})
	c.add(groupTools, "tools-top-k", "n,auto", "run every case with tool retrieval offering each of these numbers of tools (a matrix axis; 0 offers all)", listValue{&m.ToolsTopK})
	c.add(groupTools, "retriever", "a,b", "run every case with each of these retrievers: lexical, embedding, hybrid (a matrix axis)", listValue{&m.Retrievers})
	c.add(groupTools, "distractors", "n,m", "run every case with each of these numbers of extra tools, drawn from the bundled catalogue of 1,190 (a matrix axis)", numbersValue{&m.Distractors})
	c.add(groupLoop, "parallel", "n", "cases run at once: raise it for a server that batches, such as vLLM", (*intValue)(&f.parallel))
	c.add(groupLoop, "case-timeout", "duration", "longest one case may take; then it is a timeout, not graded (0: no limit)", (*durationValue)(&f.timeout))
	c.add(groupOutput, "json", "", "print one JSON line per case as it ends, then the summary, instead of the table", (*boolValue)(&c.json))
	c.add(groupOutput, "v", "", "also say which MCP servers each set of tools connected", (*boolValue)(&c.verbose))
	c.add(groupOutput, "junit", "file", "also write the results as JUnit XML, for CI", text{&f.junit})
	c.add(groupOutput, "min-pass", "rate", "exit with status 1 when the pass rate is below this, such as 0.9", (*floatValue)(&f.minPass))
	c.withEnv(groupServer, "data-dir", "dir", "where the history of runs is kept; unset, the user's data directory (the one toolscope serve shows)", text{&c.dataDir})
	c.add(groupServer, "no-history", "", "keep the cases' runs in memory only, not in the history", (*boolValue)(&c.noHistory))
	c.withEnv(groupServer, "keep-runs", "n", "runs the history keeps, the oldest dropped first: an eval's runs count", (*intValue)(&c.keepRuns))
}

// check says what is wrong with eval's own flags, and with the MCP flags,
// which an eval does not take; "" when nothing is.
func (f *evalFlags) check(s engine.Settings) string {
	switch {
	case len(s.MCP) > 0 || s.MCPConfig != "":
		return "takes no --mcp, --mcp-sse or --mcp-config: a suite names the MCP servers its cases offer (tools: {mcp: [\"toolscope mcp calculator\"]})"
	case f.parallel < 1 || f.parallel > runs.DefaultMaxLive:
		return fmt.Sprintf("--parallel %d must be from 1 to %d", f.parallel, runs.DefaultMaxLive)
	case f.minPass < 0 || f.minPass > 1:
		return fmt.Sprintf("--min-pass %v must be a rate from 0 to 1, such as 0.9", f.minPass)
	case f.timeout < 0:
		return fmt.Sprintf("--case-timeout %v must be 0 or more", f.timeout)
	}
	return ""
}

// loadSuites reads every suite, and says every problem of each.
func loadSuites(paths []string, stderr io.Writer) ([]*suite.Suite, bool) {
	var suites []*suite.Suite
	ok := true
	for _, p := range paths {
		s, err := loadSuite(p)
		if err != nil {
			// A suite's problems are joined, one a line.
			for line := range strings.SplitSeq(err.Error(), "\n") {
				fmt.Fprintf(stderr, "toolscope eval: %s\n", line)
			}
			ok = false
			continue
		}
		suites = append(suites, s)
	}
	return suites, ok
}

// loadSuite reads a suite file; or a BFCL question file, as BFCL names
// them (BFCL_v4_simple_python.json), with its answers from the
// possible_answer directory beside it, where BFCL keeps them (the
// irrelevance categories have none).
func loadSuite(path string) (*suite.Suite, error) {
	name := filepath.Base(path)
	if !strings.HasPrefix(name, "BFCL_") || filepath.Ext(name) != ".json" {
		return suite.Load(path)
	}
	answers := filepath.Join(filepath.Dir(path), "possible_answer", name)
	if _, err := os.Stat(answers); err != nil {
		answers = ""
	}
	return suite.ReadBFCL(path, answers)
}

// matrixFlags names the flag of each axis, for errors.
var matrixFlags = map[engine.Setting]string{
	engine.SettingModel: "models", engine.SettingMode: "modes", engine.SettingDialect: "dialects",
	engine.SettingToolsTopK: "tools-top-k", engine.SettingRetriever: "retriever", "distractors": "distractors",
}

// reportMatrix says which values of the matrix flags cannot be used.
func reportMatrix(err error, stderr io.Writer) int {
	bad, other := engine.SettingErrors(err)
	for _, se := range bad {
		fmt.Fprintf(stderr, "toolscope eval: --%s %s %s\n", matrixFlags[se.Setting], se.Value, se.Problem)
	}
	if other != nil {
		fmt.Fprintf(stderr, "toolscope eval: %v\n", other)
	}
	return exitUsage
}

// mcpLog is where the engines of the cases' tools say which MCP servers
// are ready, with -v: a server that fails is a backend error of each case
// that offers it, which says why.
func (c *command) mcpLog(stderr io.Writer) io.Writer {
	if c.verbose {
		return stderr
	}
	return nil
}

// checkModels asks the backend whether it serves each model of the
// matrix, before any case runs.
func checkModels(ctx context.Context, e *engine.Engine, models []string) error {
	for _, m := range models {
		s := e.Settings()
		s.Model = m
		if err := e.CheckModel(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// run runs the eval, reporting each case as it ends, and then the
// summary; the exit status says whether it passed.
func (f *evalFlags) run(ctx context.Context, c *command, e *engine.Engine, hub *runs.Hub, cfg runner.Config, stdout, stderr io.Writer) int {
	out := &evalOutput{json: c.json, stdout: stdout, failures: maxFailuresShown}
	if f.junit != "" {
		j, err := newJUnit(f.junit)
		if err != nil {
			fmt.Fprintf(stderr, "toolscope eval: --junit: %v\n", err)
			return exitError
		}
		out.junit = j
	}
	bar := progress(stderr, cfg.Planned())
	cfg.Report = func(r runner.Result) {
		out.result(r)
		if bar != nil {
			_ = bar.Add(1)
		}
	}
	started := time.Now()
	sum, err := runner.Run(ctx, cfg)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolscope eval: %v\n", err)
		return exitError
	}
	if out.junit != nil {
		if err := out.junit.close(sum, time.Since(started)); err != nil {
			fmt.Fprintf(stderr, "toolscope eval: --junit: %v\n", err)
			return exitError
		}
	}
	out.summary(sum, e.Backend().Info().Demo, hub.History())
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case f.minPass > 0 && sum.PassRate() < f.minPass:
		fmt.Fprintf(stderr, "toolscope eval: the pass rate %s is below --min-pass %s\n", percent(sum.PassRate()), percent(f.minPass))
		return exitError
	}
	return exitOK
}

// progress returns a bar of total cases on w when w is a terminal; nil
// otherwise, where a bar's redraws would only clutter a log.
func progress(w io.Writer, total int) *progressbar.ProgressBar {
	if !isTerminal(w) {
		return nil
	}
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("cases"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish())
}

// Flag values of eval's matrix.
type (
	// listValue is a comma-separated list; given twice, the lists join.
	listValue struct{ p *[]string }
	// numbersValue is a comma-separated list of whole numbers.
	numbersValue struct{ p *[]int }
)

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}
func (v listValue) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			return errors.New("an empty item: give values separated by commas, such as a,b")
		}
		*v.p = append(*v.p, item)
	}
	return nil
}

func (v numbersValue) String() string {
	if v.p == nil {
		return ""
	}
	var parts []string
	for _, n := range *v.p {
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ",")
}
func (v numbersValue) Set(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil {
			return fmt.Errorf("%q is not a whole number: give numbers separated by commas, such as 0,10,100", item)
		}
		*v.p = append(*v.p, n)
	}
	return nil
}

// percent writes a rate as people read it, to a tenth: 83.3%, 100%.
func percent(rate float64) string {
	return strconv.FormatFloat(math.Round(rate*1000)/10, 'f', -1, 64) + "%"
}
