package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/suite"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
)

// Config says what to run, where, and whom to tell.
type Config struct {
	Suites []*suite.Suite
	Cells  []Cell // from Matrix.Cells; none means one cell of the suites' own settings
	// Base are the settings each case's apply over: the program's, with
	// BackendAuto settled (engine.Engine.Settings).
	Base engine.Settings
	// Options are given to each engine started, such as
	// engine.WithProgram for "toolscope mcp …" servers.
	Options []engine.Option
	// Hub runs the cases, with runs.SourceEval. When it runs as many
	// runs as its Limits.MaxLive allows, a case waits for a place.
	Hub *runs.Hub
	// Parallel is how many cases run at once; 1 when less.
	Parallel int
	// Timeout bounds each case run; 0 sets none.
	Timeout time.Duration
	// Log is where engines say which MCP servers are ready; nil discards.
	Log io.Writer
	// Report is called with each result as its case ends, from one
	// goroutine at a time. It may be nil.
	Report func(Result)
}

// Result is one run of one case in one cell, graded.
type Result struct {
	Suite  string `json:"suite"`
	Case   string `json:"id"`
	Repeat int    `json:"repeat"` // 1 for the first run of the case
	Cell   Cell   `json:"cell"`
	// RunID is the run's ID in the hub and the history; "" when the run
	// could not start (then Category is backend_error).
	RunID string `json:"run_id"`
	grade.Result
	Latency time.Duration `json:"-"`
	// PromptTokens and OutputTokens are the backend's counters, summed
	// over the rounds; ToolsTokens estimates what the first prompt's
	// tools block cost of them (its share of the prompt's characters).
	PromptTokens int `json:"prompt_tokens"`
	OutputTokens int `json:"output_tokens"`
	ToolsTokens  int `json:"tools_tokens"`
}

// Graded says whether the result is a verdict on the model.
func (r Result) Graded() bool { return r.Pass || r.Category.Graded() }

// unread are the events grading has no use for: the text as it streams,
// which run_finished repeats whole, and the calls as they are written,
// which their parsed, invalid or cut events repeat. They are most of a
// run's events, and decoding them was a third of the harness's own cost.
var unread = map[agent.Type]bool{
	agent.Token: true, agent.TextDelta: true, agent.ThinkingDelta: true, agent.ToolCallDelta: true,
}

// job is one case run to do.
type job struct {
	suite  *suite.Suite
	c      *suite.Case
	cell   Cell
	repeat int
}

// Planned is how many case runs cfg holds.
func (cfg Config) Planned() int {
	n := 0
	for _, s := range cfg.Suites {
		for _, c := range s.Cases {
			n += c.Repeat
		}
	}
	return n * len(cfg.cells())
}

func (cfg Config) cells() []Cell {
	if len(cfg.Cells) == 0 {
		return []Cell{{}}
	}
	return cfg.Cells
}

// Run runs every case of cfg and returns the tallies. It returns early,
// with the results so far, when ctx ends. Its error is a problem of cfg
// itself; a case that cannot run is a result, a backend error.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Hub == nil {
		return Summary{}, errors.New("runner: no hub to run the cases in")
	}
	cells := cfg.cells()
	sum := Summary{Planned: cfg.Planned(), Cells: make([]CellTally, len(cells))}
	for i, c := range cells {
		sum.Cells[i].Cell = c
	}
	boxes := newToolboxes(ctx, cfg.Base, cfg.Log, cfg.Options)
	defer boxes.close()

	jobs := make(chan job)
	results := make(chan Result)
	go plan(ctx, cfg.Suites, cells, jobs)
	var workers sync.WaitGroup
	for range max(cfg.Parallel, 1) {
		workers.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					continue // stopped: the case does not run, and counts as not run
				}
				results <- runCase(ctx, cfg, boxes, j)
			}
		})
	}
	go func() { workers.Wait(); close(results) }()
	for r := range results {
		sum.Add(r)
		sum.Cells[r.Cell.Index].Add(r)
		if cfg.Report != nil {
			cfg.Report(r)
		}
	}
	sum.NotRun = sum.Planned - sum.Cases
	return sum, nil
}

// plan sends each case run in turn, cell by cell, until ctx ends: jobs
// are made as workers take them, never all held at once.
func plan(ctx context.Context, suites []*suite.Suite, cells []Cell, jobs chan<- job) {
	defer close(jobs)
	for _, cell := range cells {
		for _, s := range suites {
			for i := range s.Cases {
				c := &s.Cases[i]
				for repeat := 1; repeat <= c.Repeat; repeat++ {
					select {
					case jobs <- job{suite: s, c: c, cell: cell, repeat: repeat}:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}
}

// runCase runs one case and grades it.
func runCase(ctx context.Context, cfg Config, boxes *toolboxes, j job) Result {
	res := Result{Suite: j.suite.Name, Case: j.c.ID, Repeat: j.repeat, Cell: j.cell}
	run, box, err := startCase(ctx, cfg, boxes, j)
	if err != nil {
		res.Result = grade.Result{Category: grade.BackendError, Message: err.Error()}
		if ctx.Err() != nil {
			res.Result = grade.Result{Category: grade.Cancelled, Message: "the eval was stopped before the case started"}
		}
		return res
	}
	res.RunID = run.ID
	caseCtx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.Timeout > 0 {
		caseCtx, cancel = context.WithTimeout(ctx, cfg.Timeout)
	}
	defer cancel()
	stop := context.AfterFunc(caseCtx, func() { run.Cancel() })
	defer stop()
	t := transcript.New()
	// Background: the events go on to run_finished once the run is
	// cancelled, and the fold needs them.
	for enc := range run.Encoded(context.Background(), 0) {
		if !unread[enc.Type] {
			t.Add(enc.Event())
		}
	}
	res.Latency = time.Since(run.Started) // the run's, not the setting up of its tools
	did := graded(t, box.schemas)
	if did.Finish == grade.FinishCancelled && ctx.Err() == nil && caseCtx.Err() != nil {
		did.Finish = grade.FinishTimeout
	}
	res.Result = grade.Grade(j.c.Expect, did)
	n := tokensOf(t)
	res.PromptTokens, res.OutputTokens, res.ToolsTokens = n.prompt, n.output, n.tools
	return res
}

// startCase starts the run of j in the hub. A hub that runs as many
// runs as it may (one of ours ending, or others' in a server's hub) is
// waited for.
func startCase(ctx context.Context, cfg Config, boxes *toolboxes, j job) (*runs.Run, *toolbox, error) {
	a, box, err := caseAgent(cfg, boxes, j)
	if err != nil {
		return nil, nil, err
	}
	message, history := request(j.c)
	spec := runs.Spec{Message: message, History: history, Agent: a, Source: runs.SourceEval}
	for wait := time.Millisecond; ; wait = min(2*wait, maxStartWait) {
		run, err := cfg.Hub.Start(spec)
		if !errors.Is(err, runs.ErrTooManyRuns) {
			return run, box, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, nil, err
		}
	}
}

// maxStartWait is the longest wait between two tries of a full hub.
const maxStartWait = 100 * time.Millisecond

// caseAgent applies the case's settings over the base, then the cell's,
// and returns the agent of those settings on the toolbox of the case's
// tools.
func caseAgent(cfg Config, boxes *toolboxes, j job) (*agent.Agent, *toolbox, error) {
	s, err := cfg.Base.Apply(j.c.Settings)
	if err == nil {
		s, err = s.Apply(j.cell.values())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the case's settings: %w", err)
	}
	box, err := boxes.get(toolboxKey{Tools: j.c.Tools, Distractors: j.cell.Distractors, Delay: s.ToolDelay})
	if err != nil {
		return nil, nil, fmt.Errorf("the case's tools: %w", err)
	}
	a, err := box.agent(s)
	return a, box, err
}

// request is what a case asks: its request alone, or the last turn of
// its history, the history then kept whole for the run to answer.
func request(c *suite.Case) (message string, history *agent.Conversation) {
	if len(c.Messages) == 0 {
		return c.Request, nil
	}
	conv := &agent.Conversation{Messages: []llm.Message{{Role: llm.RoleSystem}}} // the system prompt's place
	var system []string
	for _, m := range c.Messages {
		if m.Role == suite.RoleSystem {
			system = append(system, m.Content)
			continue
		}
		conv.Messages = append(conv.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	conv.System = strings.Join(system, "\n\n")
	return c.Messages[len(c.Messages)-1].Content, conv
}
