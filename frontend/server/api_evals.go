package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/eval/runner"
	"github.com/toolscope/toolscope/eval/suite"
	bundled "github.com/toolscope/toolscope/examples/evals"
)

// The bounds of an eval started from the page: one eval at a time (see
// evals), of at most maxEvalCases case runs, maxEvalParallel at once.
const (
	maxEvalCases        = 2000
	maxEvalRepeat       = 20
	maxEvalParallel     = 8
	defaultEvalParallel = 4
)

// evalRequest is the body of POST /api/evals: a bundled suite by name,
// or a suite's text, and the matrix.
type evalRequest struct {
	Suite       string   `json:"suite"`
	Upload      string   `json:"upload"`
	Models      []string `json:"models"`
	Modes       []string `json:"modes"`
	Dialects    []string `json:"dialects"`
	ToolsTopK   []string `json:"tools_top_k"`
	Retrievers  []string `json:"retrievers"`
	Distractors []int    `json:"distractors"`
	// Repeat, when set, runs each case that many times, over the suite's
	// own repeat.
	Repeat   int `json:"repeat"`
	Parallel int `json:"parallel"`
}

func (r evalRequest) matrix() runner.Matrix {
	return runner.Matrix{Models: r.Models, Modes: r.Modes, Dialects: r.Dialects, ToolsTopK: r.ToolsTopK,
		Retrievers: r.Retrievers, Distractors: r.Distractors}
}

// matrixFields names each axis's setting as evalRequest spells it.
var matrixFields = map[engine.Setting]string{
	engine.SettingModel: "models", engine.SettingMode: "modes", engine.SettingDialect: "dialects",
	engine.SettingToolsTopK: "tools_top_k", engine.SettingRetriever: "retrievers", "distractors": "distractors",
}

// suiteProblems answers a suite that cannot run: 400, every problem a
// line of "problems", named by line and field as suite.Parse gives them.
type suiteProblems struct{ problems []string }

func (p *suiteProblems) Error() string { return strings.Join(p.problems, "; ") }

func (s *Server) startEval(c *fiber.Ctx) error {
	var req evalRequest
	if err := decodeStrict(c.Body(), &req, "eval request", `{"suite": "stubs", "dialects": ["hermes", "pythonic"]}`); err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	st, err := readEvalSuite(req)
	if err != nil {
		var sp *suiteProblems
		if errors.As(err, &sp) {
			return writeJSON(c, fiber.StatusBadRequest, fiber.Map{"error": "the suite cannot run: " + sp.Error(), "problems": sp.problems})
		}
		return err
	}
	base := s.cfg.Engine.Settings()
	// An eval measures the model, not how a person watches it, as
	// toolscope eval's do.
	base.DemoDelay, base.ToolDelay = 0, 0
	cells, err := req.matrix().Cells(base)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, matrixProblems(err))
	}
	if err := checkEvalBounds(&req, st, len(cells)); err != nil {
		return err
	}
	for _, m := range req.Models {
		ms := base
		ms.Model = m
		if err := s.checkModel(c, ms); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := runner.Config{Suites: []*suite.Suite{st}, Cells: cells, Base: base, Options: s.cfg.EvalOptions,
		Hub: s.cfg.Hub, Parallel: req.Parallel}
	e := newEvalRun(st.Name, ownTools(st), cfg.Cells, cfg.Planned(), cancel)
	if !s.evals.start(e) {
		cancel()
		return fiber.NewError(fiber.StatusConflict, "an eval is running: wait for it to finish, or stop it (POST /api/evals/{id}/cancel); the server runs one at a time")
	}
	cfg.Report = e.add
	go func() {
		defer cancel()
		_, _ = runner.Run(ctx, cfg) // its error is a missing hub, which a server always has
		e.finish(ctx.Err() != nil)
	}()
	return writeJSON(c, fiber.StatusCreated, fiber.Map{"id": e.id, "planned": e.planned, "events": evalEventsPath(e.id)})
}

// readEvalSuite is the suite req names or carries, with req's repeat.
func readEvalSuite(req evalRequest) (*suite.Suite, error) {
	var st *suite.Suite
	var err error
	switch {
	case req.Suite != "" && req.Upload != "":
		return nil, fiber.NewError(fiber.StatusBadRequest, `send "suite" (a bundled one) or "upload" (a suite's text), not both`)
	case req.Suite != "":
		st, err = bundledSuite(req.Suite)
	case strings.TrimSpace(req.Upload) != "":
		if st, err = suite.Parse("upload", []byte(req.Upload)); err != nil {
			return nil, &suiteProblems{strings.Split(err.Error(), "\n")} // one problem a line
		}
		err = refuseMCP(st)
	default:
		return nil, fiber.NewError(fiber.StatusBadRequest, `send "suite", the name of a bundled suite (GET /api/evals/suites), or "upload", a suite's text`)
	}
	if err != nil {
		return nil, err
	}
	if req.Repeat != 0 {
		if req.Repeat < 1 || req.Repeat > maxEvalRepeat {
			return nil, fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf(`"repeat" %d must be from 1 to %d`, req.Repeat, maxEvalRepeat))
		}
		for i := range st.Cases {
			st.Cases[i].Repeat = req.Repeat
		}
	}
	return st, nil
}

// bundledSuite reads the bundled suite of that name.
func bundledSuite(name string) (*suite.Suite, error) {
	file := name + ".yaml"
	data, err := bundled.Files.ReadFile(file) // fs paths: "../x" is no file of it
	if err != nil {
		names, _ := bundledNames()
		return nil, fiber.NewError(fiber.StatusNotFound, fmt.Sprintf(`"suite": no bundled suite %q: there are %s`, name, strings.Join(names, ", ")))
	}
	st, err := suite.Parse(path.Join("examples/evals", file), data)
	if err != nil {
		return nil, fmt.Errorf("the bundled suite %s: %w", name, err) // a bug of the build: 500
	}
	return st, nil
}

func bundledNames() ([]string, error) {
	files, err := fs.Glob(bundled.Files, "*.yaml")
	for i, f := range files {
		files[i] = strings.TrimSuffix(f, ".yaml")
	}
	return files, err
}

// refuseMCP refuses an uploaded suite that names MCP servers: a server's
// MCP commands are programs run on its machine, which only the person
// who started it chooses. The bundled suites may: they are part of it.
func refuseMCP(st *suite.Suite) error {
	var problems []string
	for _, c := range st.Cases {
		if len(c.Tools.MCP) > 0 {
			problems = append(problems, fmt.Sprintf("upload:%d: case %q: tools.mcp: an uploaded suite cannot start MCP servers "+
				"(they run programs on the server); offer stubs or inline tools, or run it with toolscope eval", c.Line, c.ID))
		}
	}
	if problems != nil {
		return &suiteProblems{problems}
	}
	return nil
}

// matrixProblems words the matrix's bad values by evalRequest's fields.
func matrixProblems(err error) string {
	bad, other := engine.SettingErrors(err)
	var out []string
	for _, se := range bad {
		out = append(out, fmt.Sprintf("%q %s %s", matrixFields[se.Setting], se.Value, se.Problem))
	}
	if other != nil {
		out = append(out, other.Error())
	}
	return strings.Join(out, "; ")
}

// checkEvalBounds refuses an eval larger than a shared server should run,
// and sets the parallel default.
func checkEvalBounds(req *evalRequest, st *suite.Suite, cells int) error {
	if req.Parallel == 0 {
		req.Parallel = defaultEvalParallel
	}
	if req.Parallel < 1 || req.Parallel > maxEvalParallel {
		return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf(`"parallel" %d must be from 1 to %d`, req.Parallel, maxEvalParallel))
	}
	runs := 0
	for _, c := range st.Cases {
		runs += c.Repeat
	}
	if runs*cells > maxEvalCases {
		return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("the eval would run %d cases (%d case runs in each of %d cells): the page runs at most %d; "+
			"take fewer matrix values, or run it with toolscope eval", runs*cells, runs, cells, maxEvalCases))
	}
	return nil
}

// ownTools is how many tools the suite's cases offer themselves, at most:
// stubs and inline tools (an MCP server's are known only once it runs).
func ownTools(st *suite.Suite) int {
	n := 0
	for _, c := range st.Cases {
		n = max(n, len(c.Tools.Stubs)+len(c.Tools.Inline))
	}
	return n
}

func evalEventsPath(id string) string { return "/api/evals/" + id + "/events" }

// suiteInfo is one bundled suite, as GET /api/evals/suites lists it.
type suiteInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Cases       int    `json:"cases"`
	Tools       int    `json:"tools"`
}

func (s *Server) listSuites(c *fiber.Ctx) error {
	names, err := bundledNames()
	if err != nil {
		return err
	}
	out := []suiteInfo{}
	for _, name := range names {
		st, err := bundledSuite(name)
		if err != nil {
			return err
		}
		out = append(out, suiteInfo{Name: name, Description: st.Description, Cases: len(st.Cases), Tools: ownTools(st)})
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"suites": out})
}

func (s *Server) lookupEval(c *fiber.Ctx) (*evalRun, error) {
	e := s.evals.get(c.Params("id"))
	if e == nil {
		return nil, fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("no eval %q: the server keeps only the latest", c.Params("id")))
	}
	return e, nil
}

// latestEval answers the server's eval, running or done, or 204 before
// the first: a page reloaded mid-eval finds it again.
func (s *Server) latestEval(c *fiber.Ctx) error {
	e := s.evals.latest()
	if e == nil {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return writeJSON(c, fiber.StatusOK, e.status(s.cfg.Engine.Backend().Info().Demo))
}

func (s *Server) getEval(c *fiber.Ctx) error {
	e, err := s.lookupEval(c)
	if err != nil {
		return err
	}
	return writeJSON(c, fiber.StatusOK, e.status(s.cfg.Engine.Backend().Info().Demo))
}

func (s *Server) cancelEval(c *fiber.Ctx) error {
	e, err := s.lookupEval(c)
	if err != nil {
		return err
	}
	e.cancel()
	return writeJSON(c, fiber.StatusAccepted, fiber.Map{"id": e.id})
}

// streamEval sends an eval's progress as Server-Sent Events: a
// case_finished event per case run as it ends (`id:` counts them, so
// Last-Event-ID resumes after that many), then eval_finished with the
// tallies, and the stream ends.
func (s *Server) streamEval(c *fiber.Ctx) error {
	e, err := s.lookupEval(c)
	if err != nil {
		return err
	}
	from, err := lastEventID(c)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	demo := s.cfg.Engine.Backend().Info().Demo
	s.serveSSE(c, s.cfg.Heartbeat, nil, func(ctx context.Context, out *sseWriter) {
		streamEvalEvents(ctx, out, e, from, demo)
	})
	return nil
}

// streamEvalEvents writes e's results after the first seq, as they come,
// until it ends or ctx does.
func streamEvalEvents(ctx context.Context, out *sseWriter, e *evalRun, seq int, demo bool) {
	for {
		results, done, changed := e.after(seq)
		for _, r := range results {
			seq++
			b, _ := json.Marshal(r) // plain fields
			out.named(seq, "case_finished", b)
		}
		if done {
			st := e.status(demo)
			st.Cases = nil // the stream sent them
			b, _ := json.Marshal(st)
			out.named(seq, "eval_finished", b)
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
