package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// runRequest is the body of POST /api/runs. Only message is required;
// the other fields override the server's settings for this run.
type runRequest struct {
	Message        string `json:"message"`
	ConversationID string `json:"conversation_id"`
	Backend        string `json:"backend"`
	Model          string `json:"model"`
	Mode           string `json:"mode"`
	Dialect        string `json:"dialect"`
	MaxRounds      int    `json:"max_rounds"`
	ToolDelayMS    *int   `json:"tool_delay_ms"`
	Think          *bool  `json:"think"`
}

// settings applies the request to base and checks the result, naming
// each bad field as the request spells it.
func (req *runRequest) settings(base engine.Settings) (engine.Settings, error) {
	var problems []string
	if strings.TrimSpace(req.Message) == "" {
		problems = append(problems, `"message" is empty: say what the model should do`)
	}
	o := engine.Overrides{Think: req.Think}
	if req.Backend != "" {
		o.Backend = &req.Backend
	}
	if req.Model != "" {
		o.Model = &req.Model
	}
	if req.Mode != "" {
		mode := llm.Mode(req.Mode)
		o.Mode = &mode
	}
	if req.MaxRounds != 0 {
		o.MaxRounds = &req.MaxRounds
	}
	if req.ToolDelayMS != nil {
		d := time.Duration(*req.ToolDelayMS) * time.Millisecond
		o.ToolDelay = &d
	}
	var bad []error
	if req.Dialect != "" {
		d, err := engine.ParseDialect(req.Dialect)
		o.Dialect = &d
		bad = append(bad, err)
	}
	s := base.With(o)
	bad = append(bad, s.Validate())
	for _, err := range bad {
		problems = append(problems, req.word(err)...)
	}
	if len(problems) > 0 {
		return s, errors.New(strings.Join(problems, "; "))
	}
	return s, nil
}

// word says what is wrong with each setting in err as the JSON API names
// it: tool delays are in milliseconds there.
func (req *runRequest) word(err error) []string {
	var out []string
	for _, e := range unjoin(err) {
		var se *engine.SettingError
		switch {
		case !errors.As(e, &se):
			out = append(out, e.Error())
		case se.Setting == engine.SettingToolDelay && req.ToolDelayMS != nil:
			out = append(out, fmt.Sprintf(`"tool_delay_ms" %d must be from 0 to %d`, *req.ToolDelayMS, engine.MaxToolDelay.Milliseconds()))
		default:
			out = append(out, fmt.Sprintf("%q %s %s", se.Setting, se.Value, se.Problem))
		}
	}
	return out
}

// unjoin lists the errors errors.Join put together; none for nil.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// decodeStrict reads exactly one JSON object with only known fields.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New(`the body is empty: send a JSON object such as {"message": "…"}`)
		}
		return fmt.Errorf("the body is not a valid run request: %v", err)
	}
	if dec.More() {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

func (s *Server) startRun(c *fiber.Ctx) error {
	var req runRequest
	if err := decodeStrict(c.Body(), &req); err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	settings, err := req.settings(s.cfg.Engine.Settings())
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	a, err := s.cfg.Engine.Agent(settings)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	run, err := s.cfg.Hub.Start(runs.Spec{Message: req.Message, ConversationID: req.ConversationID, Agent: a})
	switch {
	case errors.Is(err, runs.ErrUnknownConversation):
		return fiber.NewError(fiber.StatusNotFound, err.Error())
	case errors.Is(err, runs.ErrBusy):
		return fiber.NewError(fiber.StatusConflict, err.Error())
	case errors.Is(err, runs.ErrClosed):
		return fiber.NewError(fiber.StatusServiceUnavailable, err.Error())
	case err != nil:
		return err
	}
	return writeJSON(c, fiber.StatusCreated, fiber.Map{
		"id":              run.ID,
		"conversation_id": run.ConversationID,
		"events":          "/api/runs/" + run.ID + "/events",
	})
}

func (s *Server) lookupRun(c *fiber.Ctx) (*runs.Run, error) {
	run, ok := s.cfg.Hub.Get(c.Params("id"))
	if !ok {
		return nil, fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("no run %q: it never existed or has expired", c.Params("id")))
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

func (s *Server) cancelRun(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	run.Cancel()
	return writeJSON(c, fiber.StatusAccepted, fiber.Map{"id": run.ID, "cancelled": true})
}

// health tells whether the default backend can answer.
type health struct {
	OK            bool   `json:"ok"`
	Backend       string `json:"backend"`
	Model         string `json:"model"`
	Mode          string `json:"mode"`
	Demo          bool   `json:"demo"`
	OllamaVersion string `json:"ollama_version,omitempty"`
	Error         string `json:"error,omitempty"`
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
	backend := s.cfg.Engine.Backend()
	info := backend.Info()
	h := health{OK: true, Backend: info.Backend, Model: info.Model, Mode: string(info.Mode), Demo: info.Demo}
	if b, ok := backend.(checker); ok {
		ctx, cancel := context.WithTimeout(c.UserContext(), 5*time.Second)
		defer cancel()
		version, err := b.Check(ctx)
		h.OllamaVersion = version
		if err != nil {
			h.OK, h.Error = false, err.Error()
		}
	}
	return writeJSON(c, fiber.StatusOK, h)
}

func (s *Server) models(c *fiber.Ctx) error {
	backend := s.cfg.Engine.Backend()
	info := backend.Info()
	l, ok := backend.(modelLister)
	if !ok {
		return writeJSON(c, fiber.StatusOK, fiber.Map{"models": []string{info.Model}})
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), 5*time.Second)
	defer cancel()
	models, err := l.Models(ctx)
	if err != nil {
		return fiber.NewError(fiber.StatusBadGateway, err.Error())
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"models": models})
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
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
