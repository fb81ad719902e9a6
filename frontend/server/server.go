// Package server is toolscope's HTTP face, on Fiber: the playground page,
// the run API, and each run's events as Server-Sent Events that a viewer
// can resume. It starts runs through package runs and never drives the
// loop itself.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// Defaults of Config fields left zero.
const (
	DefaultHeartbeat = 15 * time.Second
	DefaultBodyLimit = 64 << 10
)

// Config sets up a Server.
type Config struct {
	Hub *runs.Hub
	// NewAgent builds the agent for one run from the options its request
	// gave; fields left zero mean the server's defaults.
	NewAgent func(RunOptions) (*agent.Agent, error)
	// Backend is the default backend, for the page, /api/health and
	// /api/models.
	Backend llm.Backend
	// Tools lists the tools runs may call, for the page and /api/tools.
	Tools func() []tools.Tool
	// MCP describes the MCP servers the tools come from, for /api/mcp; nil
	// when there are none.
	MCP func() []mcp.ServerInfo
	// Settings the page's form starts with.
	Dialect     string
	MaxRounds   int
	ToolDelay   time.Duration
	Think       *bool         // nil: the model decides
	Heartbeat   time.Duration // SSE comment interval on idle streams
	BodyLimit   int           // largest request body, in bytes
	ReadTimeout time.Duration
}

// RunOptions are what a request may choose for its run.
type RunOptions struct {
	Backend, Model, Mode string
	Dialect              string
	MaxRounds            int
	ToolDelay            *time.Duration
	Think                *bool
}

// Server serves the playground. Create it with New.
type Server struct {
	cfg Config
	app *fiber.App
}

// New returns a Server with its routes set up.
func New(cfg Config) *Server {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	s := &Server{cfg: cfg}
	s.app = fiber.New(fiber.Config{
		AppName:               "toolscope",
		BodyLimit:             cfg.BodyLimit,
		ReadTimeout:           cfg.ReadTimeout,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler,
	})
	s.routes()
	return s
}

func (s *Server) routes() {
	s.app.Use(guard)
	s.app.Get("/", s.page)
	s.app.Use("/static", filesystem.New(filesystem.Config{Root: http.FS(web.Static), PathPrefix: "static", MaxAge: 0}))
	api := s.app.Group("/api")
	api.Post("/runs", s.startRun)
	api.Get("/runs/:id", s.getRun)
	api.Get("/runs/:id/events", s.streamEvents)
	api.Post("/runs/:id/cancel", s.cancelRun)
	api.Get("/health", s.health)
	api.Get("/models", s.models)
	api.Get("/tools", s.tools)
	api.Get("/mcp", s.mcpServers)
	s.app.Use(func(c *fiber.Ctx) error {
		return fiber.NewError(fiber.StatusNotFound, "no such page: "+c.Path())
	})
}

// Serve answers requests on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.app.Listener(ln)
}

// Shutdown stops accepting requests, cancels every run, and waits for open
// requests, event streams included, to end or for ctx to end.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cfg.Hub.Close() // ends runs, so their event streams close too
	return s.app.ShutdownWithContext(ctx)
}

// errorHandler answers every error as JSON: {"error": "…"}.
func errorHandler(c *fiber.Ctx, err error) error {
	status := fiber.StatusInternalServerError
	var fe *fiber.Error
	if errors.As(err, &fe) {
		status = fe.Code
	}
	msg := err.Error()
	if status == fiber.StatusRequestEntityTooLarge {
		msg = "the request body is too large: send at most " + byteSize(c.App().Config().BodyLimit)
	}
	return c.Status(status).JSON(fiber.Map{"error": msg})
}

func writeJSON(c *fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Status(status).Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b)
}
