package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/runs"
)

// maxFailuresShown bounds the failing cases the summary lists: the rest
// are in --json, --junit and the history.
const maxFailuresShown = 10

// evalOutput prints an eval's results: each case as a JSON line with
// --json, the summary otherwise, and the JUnit file when asked.
type evalOutput struct {
	json   bool
	stdout io.Writer
	junit  *junit
	// failures are the first failing cases, for the summary; failures
	// says how many more to keep.
	shown    []runner.Result
	failures int
}

// caseLine is one case's JSON line.
type caseLine struct {
	runner.Result
	Pass     bool           `json:"pass"`
	Category grade.Category `json:"category"`
	Message  string         `json:"message"`
	// LatencyMS is the case's wall time, from start to its last event.
	LatencyMS float64 `json:"latency_ms"`
}

func (o *evalOutput) result(r runner.Result) {
	if o.json {
		line := caseLine{Result: r, Pass: r.Pass, Category: r.Category, Message: r.Message, LatencyMS: ms(r.Latency)}
		writeJSONLine(o.stdout, line)
	}
	if o.junit != nil {
		o.junit.add(r)
	}
	if !r.Pass && len(o.shown) < o.failures {
		o.shown = append(o.shown, r)
	}
}

// summaryLine is the last --json line.
type summaryLine struct {
	Summary summaryJSON `json:"summary"`
}

type summaryJSON struct {
	tallyJSON
	Planned int        `json:"planned"`
	NotRun  int        `json:"not_run"`
	Cells   []cellJSON `json:"cells"`
	Demo    bool       `json:"demo"`
}

type cellJSON struct {
	Cell runner.Cell `json:"cell"`
	tallyJSON
}

type tallyJSON struct {
	Cases           int                    `json:"cases"`
	Passed          int                    `json:"passed"`
	NotGraded       int                    `json:"not_graded"`
	PassRate        float64                `json:"pass_rate"`
	Interval        [2]float64             `json:"pass_rate_95"`
	MedianLatencyMS float64                `json:"median_latency_ms"`
	PromptTokens    float64                `json:"prompt_tokens"`
	OutputTokens    float64                `json:"output_tokens"`
	ToolsTokens     float64                `json:"tools_tokens"`
	Categories      map[grade.Category]int `json:"categories,omitempty"`
}

func tallyOf(t runner.Tally) tallyJSON {
	low, high := t.Interval()
	return tallyJSON{Cases: t.Cases, Passed: t.Passed, NotGraded: t.NotGraded, PassRate: t.PassRate(), Interval: [2]float64{low, high},
		MedianLatencyMS: ms(t.MedianLatency()), PromptTokens: t.Mean(t.PromptTokens), OutputTokens: t.Mean(t.OutputTokens),
		ToolsTokens: t.Mean(t.ToolsTokens), Categories: t.Categories}
}

// summary prints the summary: a JSON line, or the table for a person.
func (o *evalOutput) summary(sum runner.Summary, demo bool, history runs.History) {
	if o.json {
		line := summaryJSON{tallyJSON: tallyOf(sum.Tally), Planned: sum.Planned, NotRun: sum.NotRun, Demo: demo}
		for _, c := range sum.Cells {
			line.Cells = append(line.Cells, cellJSON{Cell: c.Cell, tallyJSON: tallyOf(c.Tally)})
		}
		writeJSONLine(o.stdout, summaryLine{line})
		return
	}
	w := o.stdout
	table(w, sum)
	o.failuresList(w)
	categories(w, sum.Tally)
	low, high := sum.Interval()
	fmt.Fprintf(w, "\nPass rate: %s (%d of %d graded; 95%% interval %s to %s)\n",
		percent(sum.PassRate()), sum.Passed, sum.Graded(), percent(low), percent(high))
	if sum.NotGraded > 0 || sum.NotRun > 0 {
		fmt.Fprintf(w, "Not graded: %d (a backend error, a timeout or cancelled: no verdict on the model); not run: %d\n", sum.NotGraded, sum.NotRun)
	}
	if history.On {
		fmt.Fprintf(w, "Each case is a run in the history (%s): open one with toolscope serve, /?run=ID\n", history.Path)
	}
	if demo {
		fmt.Fprintln(w, "Note: the demo model is scripted, not a real model: these figures say how the demo plays its script. Real figures need a real model (--backend ollama or openai).")
	}
}

// table prints a row per cell: its pass rate and interval, the median
// latency, and the tokens per graded case.
func table(w io.Writer, sum runner.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tcases\tpassed\tpass rate\t95% interval\tmedian latency\tprompt tok\toutput tok\ttools tok\t")
	for _, c := range sum.Cells {
		low, high := c.Interval()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s–%s\t%s\t%.0f\t%.0f\t%.0f\t\n", c.Cell, c.Cases, c.Passed, percent(c.PassRate()),
			percent(low), percent(high), latency(c.MedianLatency()), c.Mean(c.PromptTokens), c.Mean(c.OutputTokens), c.Mean(c.ToolsTokens))
	}
	_ = tw.Flush()
}

// failuresList prints the first failing cases, each with its run.
func (o *evalOutput) failuresList(w io.Writer) {
	if len(o.shown) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFailures (the first ones; every case is in --json and the history):")
	for _, r := range o.shown {
		fmt.Fprintf(w, "  %s #%d [%s] %s: %s (run %s)\n", r.Case, r.Repeat, r.Cell, r.Category, r.Message, orNone(r.RunID))
	}
}

// categories prints how many failed of each category.
func categories(w io.Writer, t runner.Tally) {
	if len(t.Categories) == 0 {
		return
	}
	var parts []string
	for _, c := range slices.Sorted(mapsKeys(t.Categories)) {
		parts = append(parts, fmt.Sprintf("%s %d", c, t.Categories[c]))
	}
	fmt.Fprintf(w, "\nFailures by category: %s\n", strings.Join(parts, ", "))
}

func mapsKeys(m map[grade.Category]int) func(func(grade.Category) bool) {
	return func(yield func(grade.Category) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func orNone(id string) string {
	if id == "" {
		return "none: it did not start"
	}
	return id
}

// latency writes a duration to three figures or so: 2.7ms, 2.53s.
func latency(d time.Duration) string {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond / 10).String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func writeJSONLine(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// junit writes JUnit XML as the cases end: their testcase elements go to
// a file beside the one asked for, and close writes the counts, which
// only the end knows, then the cases, so that no case is held in memory.
type junit struct {
	path  string
	cases *os.File
	enc   *xml.Encoder
}

func newJUnit(path string) (*junit, error) {
	f, err := os.CreateTemp(dirOf(path), ".junit-*.xml")
	if err != nil {
		return nil, err
	}
	return &junit{path: path, cases: f, enc: xml.NewEncoder(f)}, nil
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func (j *junit) add(r runner.Result) {
	c := junitCase{Classname: r.Suite + " [" + r.Cell.String() + "]", Name: fmt.Sprintf("%s #%d", r.Case, r.Repeat),
		Time: seconds(r.Latency), SystemOut: "run " + orNone(r.RunID)}
	if !r.Pass {
		p := &junitProblem{Message: r.Message, Type: string(r.Category), Text: r.Message}
		if r.Graded() {
			c.Failure = p
		} else {
			c.Error = p
		}
	}
	_ = j.enc.Encode(c)
}

// close writes the file asked for: the counts, then the cases.
func (j *junit) close(sum runner.Summary, took time.Duration) error {
	defer os.Remove(j.cases.Name())
	defer j.cases.Close()
	if err := j.enc.Flush(); err != nil {
		return err
	}
	if _, err := j.cases.Seek(0, io.SeekStart); err != nil {
		return err
	}
	out, err := os.Create(j.path)
	if err != nil {
		return err
	}
	failures := sum.Graded() - sum.Passed
	fmt.Fprintf(out, "%s<testsuites name=\"toolscope eval\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\">\n"+
		"<testsuite name=\"toolscope eval\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\">\n",
		xml.Header, sum.Cases, failures, sum.NotGraded, sum.NotRun, seconds(took), sum.Cases, failures, sum.NotGraded, sum.NotRun, seconds(took))
	if _, err := io.Copy(out, j.cases); err != nil {
		out.Close()
		return err
	}
	fmt.Fprint(out, "\n</testsuite>\n</testsuites>\n")
	return out.Close()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
