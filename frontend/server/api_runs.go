package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/transcript"
)

// runRequest is the body of POST /api/runs besides its settings, which
// are the keys of engine.Fields (see decodeRequest). Only message is
// required; the settings change the server's for this run.
type runRequest struct {
	Message        string `json:"message"`
	ConversationID string `json:"conversation_id"`
	// AfterRun continues from the end of that run, whether the server
	// keeps it or only its history does: the message follows up on it.
	AfterRun string `json:"after_run"`
	// Step starts the run in step mode: it pauses until POST
	// /api/runs/{id}/continue (see runs.Spec.Step).
	Step bool `json:"step"`
	// Resources are MCP resources read into the user's turn, before the
	// message (see withResources).
	Resources []attachedResource `json:"resources"`
}

// emptyMessage is the problem of a request that asks nothing, or none.
func emptyMessage(field, message string) []string {
	if strings.TrimSpace(message) == "" {
		return []string{fmt.Sprintf("%q is empty: say what the model should do", field)}
	}
	return nil
}

func (s *Server) startRun(c *fiber.Ctx) error {
	var req runRequest
	values, err := decodeRequest(c.Body(), &req, "run request", `{"message": "…"}`, nil)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	settings, err := applySettings(s.cfg.Engine.Settings(), values, nil, emptyMessage("message", req.Message)...)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	spec := runs.Spec{Message: req.Message, ConversationID: req.ConversationID, Step: req.Step}
	if len(req.Resources) > 0 {
		if spec.Message, err = s.withResources(c.UserContext(), req.Resources, req.Message); err != nil {
			return err
		}
		req.Message = spec.Message // a follow-up's history ends with it
	}
	if req.AfterRun != "" {
		if spec.History, spec.Source, err = s.conversationAfter(req); err != nil {
			return err
		}
	}
	run, err := s.launch(c, settings, engine.Toolset{}, spec)
	if err != nil {
		return err
	}
	return writeJSON(c, fiber.StatusCreated, started(run))
}

// conversationAfter is the conversation of req.AfterRun as that run left
// it, then req's message: a follow-up to a run opened from the Runs
// panel, or from a link, continues it in a conversation of its own even
// when the server no longer holds the run's conversation. Its source is
// that run's: a follow-up of an app's run reads the app's prompt, so it
// stays out of the viewer's sight as that run does.
func (s *Server) conversationAfter(req runRequest) (*agent.Conversation, runs.Source, error) {
	if req.ConversationID != "" {
		return nil, "", fiber.NewError(fiber.StatusBadRequest, `send "after_run" or "conversation_id", not both: each says what the message follows`)
	}
	run, err := s.cfg.Hub.Get(req.AfterRun)
	switch {
	case errors.Is(err, runs.ErrNoRun):
		return nil, "", fiber.NewError(fiber.StatusNotFound, fmt.Sprintf(`"after_run": no run %q: it never existed or has expired; send your message in a new conversation`, req.AfterRun))
	case err != nil:
		return nil, "", fiber.NewError(fiber.StatusInternalServerError, fmt.Sprintf(`"after_run": run %q cannot be read from the history: %v`, req.AfterRun, err))
	}
	snap := run.Snapshot()
	if !snap.Done {
		return nil, "", fiber.NewError(fiber.StatusConflict, fmt.Sprintf(`"after_run": run %s is still going: wait for it to finish, or stop it, then send again`, run.ID))
	}
	conv, err := transcript.Conversation(snap.Events)
	if err != nil {
		return nil, "", fiber.NewError(fiber.StatusConflict, fmt.Sprintf(`"after_run": run %s cannot be followed up: %v; send your message in a new conversation`, run.ID, err))
	}
	conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: req.Message})
	return conv, run.Source, nil
}

// started is what answers a run started: where to follow it.
func started(run *runs.Run) fiber.Map {
	return fiber.Map{"id": run.ID, "conversation_id": run.ConversationID, "events": eventsPath(run.ID)}
}

// launch starts spec's run with an agent for settings offering ts. Every
// way of starting a run comes through here, so that each refuses a model
// the backend does not serve by listing those it does, and words a run
// that cannot start alike.
func (s *Server) launch(c *fiber.Ctx, settings engine.Settings, ts engine.Toolset, spec runs.Spec) (*runs.Run, error) {
	if err := s.checkModel(c, settings); err != nil {
		return nil, err
	}
	spec.Trace = traceContext(c)
	// The agent is built once the run is admitted: compiling an API
	// client's tool schemas is work a refused run should not cost.
	spec.Build = func() (*agent.Agent, error) {
		a, err := s.cfg.Engine.AgentWith(settings, ts)
		if err != nil {
			// Of what a request sends, only an API client's own tools can
			// fail here, and OpenAI's errors name the field at fault.
			param := ""
			if ts.Caller != nil {
				param = "tools"
			}
			return nil, badRequest(param, "%v", err)
		}
		return a, nil
	}
	run, err := s.cfg.Hub.Start(spec)
	if err != nil {
		return nil, startError(c, err)
	}
	return run, nil
}

// traceContext is the W3C trace context the request carries, which the
// run carries on past the request: a tracer makes the run's spans
// children of the caller's span.
func traceContext(c *fiber.Ctx) runs.TraceContext {
	return runs.TraceContext{Parent: c.Get("traceparent"), State: c.Get("tracestate"), Baggage: c.Get("baggage")}
}

// startError words why a run could not start.
func startError(c *fiber.Ctx, err error) error {
	switch {
	case errors.Is(err, runs.ErrUnknownConversation):
		return fiber.NewError(fiber.StatusNotFound, err.Error())
	case errors.Is(err, runs.ErrBusy):
		return fiber.NewError(fiber.StatusConflict, err.Error())
	case errors.Is(err, runs.ErrClosed):
		return fiber.NewError(fiber.StatusServiceUnavailable, err.Error())
	case errors.Is(err, runs.ErrTooManyRuns):
		c.Set(fiber.HeaderRetryAfter, "5")
		return fiber.NewError(fiber.StatusTooManyRequests, tooManyRuns(err))
	}
	return err
}

// tooManyRuns words ErrTooManyRuns. Runs paused in step mode hold their
// places until someone continues or cancels them, or their pause times
// out, which may be long: the API's user is told how to find them and
// what frees them.
func tooManyRuns(err error) string {
	var tm *runs.TooManyRunsError
	if !errors.As(err, &tm) || tm.Paused == 0 {
		return err.Error()
	}
	return fmt.Sprintf("too many runs are in progress (%d, the most allowed at once), and %d of them are paused in step mode: "+
		"a paused run holds its place until it is continued or cancelled, %s at most. "+
		`Find them with GET /api/runs ("status": "paused"), then POST /api/runs/{id}/continue or POST /api/runs/{id}/cancel`,
		tm.Live, tm.Paused, runs.ShortDuration(tm.PauseTimeout))
}

// eventsPath is where a run's events stream.
func eventsPath(id string) string { return "/api/runs/" + id + "/events" }

// checkModel refuses a model the backend does not serve, listing those
// it does, so that a page or script can offer them.
func (s *Server) checkModel(c *fiber.Ctx, settings engine.Settings) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 5*time.Second)
	defer cancel()
	err := s.cfg.Engine.CheckModel(ctx, settings)
	var me *engine.ModelError
	if err != nil && !errors.As(err, &me) {
		return fiber.NewError(fiber.StatusBadGateway, err.Error())
	}
	return err // errorHandler lists the models served
}

// lookupRun finds the run the path names. One the history holds but
// cannot read is a server's problem (500), not one that never existed.
func (s *Server) lookupRun(c *fiber.Ctx) (*runs.Run, error) {
	id := c.Params("id")
	run, err := s.cfg.Hub.Get(id)
	switch {
	case errors.Is(err, runs.ErrNoRun):
		return nil, fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("no run %q: it never existed or has expired", id))
	case err != nil:
		return nil, fiber.NewError(fiber.StatusInternalServerError, fmt.Sprintf("run %q cannot be read from the history: %v", id, err))
	}
	if !s.shares(c, run) {
		return nil, fiber.NewError(fiber.StatusForbidden, fmt.Sprintf(
			"run %q came from the API, not the page: the viewer link shows only the page's runs (the operator may share the API's with toolscope serve --share-api-runs)", run.ID))
	}
	return run, nil
}

func (s *Server) getRun(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	return writeJSON(c, fiber.StatusOK, run.Snapshot())
}

// listRuns lists the kept runs, newest first, whoever started them: those
// in memory and those in the history, of this server or an earlier one,
// which say "stored": true.
// ?q= keeps those whose text, model, tools or outcome contain it. It says
// whether the history is on, as /api/health does, for a page that polls
// it to learn of a failure mid-session. A history that cannot be read
// leaves the runs in memory, and says why.
func (s *Server) listRuns(c *fiber.Ctx) error {
	list, err := s.cfg.Hub.Find(c.Query("q"), 0)
	if list == nil {
		list = []runs.Summary{}
	}
	out := fiber.Map{"runs": list, "history": s.cfg.Hub.History()}
	if err != nil {
		out["history_error"] = err.Error()
	}
	return writeJSON(c, fiber.StatusOK, out)
}

func (s *Server) cancelRun(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	if !run.Cancel() {
		// Stop pressed as the run finished is a race, not a mistake: 200,
		// saying that nothing was left to cancel.
		return writeJSON(c, fiber.StatusOK, fiber.Map{"id": run.ID, "cancelled": false, "done": true})
	}
	return writeJSON(c, fiber.StatusAccepted, fiber.Map{"id": run.ID, "cancelled": true})
}

// health says what is live: the backend that answers by default (OK when
// it can), whether it is the demo model and why toolscope fell back to it,
// and what Ollama says now.
type health struct {
	OK            bool   `json:"ok"`
	Backend       string `json:"backend"`
	Model         string `json:"model"`
	Mode          string `json:"mode"`
	Demo          bool   `json:"demo"`
	OllamaVersion string `json:"ollama_version,omitempty"`
	Error         string `json:"error,omitempty"` // why the default backend cannot answer, with the fix
	// Fallback is set when --backend auto chose the demo model.
	Fallback *healthFallback `json:"fallback,omitempty"`
	// Ollama is checked when it answers by default or was wanted: after a
	// fallback it may have come up since, and a restart would use it.
	Ollama *ollamaHealth `json:"ollama,omitempty"`
	// History says whether runs outlive the server, or why not.
	History runs.History `json:"history"`
}

// healthFallback says why the demo model answers in place of Ollama.
type healthFallback struct {
	Model   string   `json:"model"`   // the Ollama model that was wanted
	Problem string   `json:"problem"` // what Ollama's check said at start
	Fix     *llm.Fix `json:"fix,omitempty"`
}

// ollamaHealth is what Ollama's check says now.
type ollamaHealth struct {
	Host      string   `json:"host"`
	Reachable bool     `json:"reachable"` // Ollama answered
	Ready     bool     `json:"ready"`     // and has the model
	Version   string   `json:"version,omitempty"`
	Problem   string   `json:"problem,omitempty"`
	Fix       *llm.Fix `json:"fix,omitempty"`
}

// Optional abilities of a backend that the health and model endpoints use.
type (
	checker interface {
		Check(context.Context) (version string, err error)
	}
	modelLister interface {
		Models(context.Context) ([]string, error)
	}
)

func (s *Server) health(c *fiber.Ctx) error {
	e := s.cfg.Engine
	backend := e.Backend()
	info := backend.Info()
	h := health{OK: true, Backend: info.Backend, Model: info.Model, Mode: string(info.Mode), Demo: info.Demo, History: s.cfg.Hub.History()}
	ctx, cancel := context.WithTimeout(c.UserContext(), 5*time.Second)
	defer cancel()
	if f := e.Fallback(); f != nil {
		h.Fallback = &healthFallback{Model: f.Model, Problem: f.Problem(), Fix: f.Fix()}
		if wanted, err := ollama.New(ollama.Config{Host: e.Settings().OllamaHost, Model: f.Model}); err == nil {
			h.Ollama, _ = checkOllama(ctx, wanted)
		}
	}
	if b, ok := backend.(checker); ok {
		var err error
		h.Ollama, err = checkOllama(ctx, b)
		h.OllamaVersion = h.Ollama.Version
		if err != nil {
			h.OK, h.Error = false, err.Error()
		}
	}
	return writeJSON(c, fiber.StatusOK, h)
}

// checkOllama asks b whether Ollama answers and has the model.
func checkOllama(ctx context.Context, b checker) (*ollamaHealth, error) {
	version, err := b.Check(ctx)
	o := &ollamaHealth{Reachable: version != "", Ready: err == nil, Version: version}
	if u, ok := b.(interface{ BaseURL() string }); ok {
		o.Host = u.BaseURL()
	}
	var le *llm.Error
	switch {
	case errors.As(err, &le):
		o.Problem, o.Fix = le.Problem, le.Fix
	case err != nil:
		o.Problem = err.Error()
	}
	return o, err
}

// modelList is /api/models: the default backend, where it is, and its
// models.
type modelList struct {
	Backend  string   `json:"backend"`
	BaseURL  string   `json:"base_url,omitempty"`
	Template string   `json:"template,omitempty"`
	Model    string   `json:"model"` // the one runs use unless they name another
	Models   []string `json:"models"`
}

func (s *Server) models(c *fiber.Ctx) error {
	info := s.cfg.Engine.Backend().Info()
	models, err := s.servedModels(c.UserContext())
	if err != nil {
		return fiber.NewError(fiber.StatusBadGateway, err.Error())
	}
	return writeJSON(c, fiber.StatusOK, modelList{Backend: info.Backend, BaseURL: info.BaseURL, Template: info.Template, Model: info.Model, Models: models})
}

// toolInfo is a tool as /api/tools lists it.
type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Source      string          `json:"source"`
}

func (s *Server) tools(c *fiber.Ctx) error {
	list := []toolInfo{}
	for _, t := range s.cfg.Engine.Tools() {
		list = append(list, toolInfo{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters(), Source: tools.SourceOf(t)})
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"tools": list})
}

func (s *Server) mcpServers(c *fiber.Ctx) error {
	servers := append([]mcp.ServerInfo{}, s.cfg.Engine.MCPServers()...)
	return writeJSON(c, fiber.StatusOK, fiber.Map{"servers": servers})
}

func byteSize(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
