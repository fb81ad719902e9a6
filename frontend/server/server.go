// Package server is toolscope's HTTP face, on Fiber: the playground page,
// the run API, and each run's events as Server-Sent Events that a viewer
// can resume. It starts runs through package runs and never drives the
// loop itself.
//
// # Files
//
// Each API is recognisable by its files' prefix:
//
//   - page.go: the page itself (GET /), rendered with the settings table.
//   - api_*.go: the page's API under /api, which scripts use too: runs
//     (api_runs.go, with health, models, tools and MCP), a run's events as
//     SSE (api_events.go), step mode (api_step.go), rerun, export, query
//     and the settings table (api_settings.go); evals from the page, one
//     at a time, and their progress as SSE (api_evals.go, the eval held
//     in api_evals_state.go); the model pulled from the page, its
//     progress as SSE (api_pull.go).
//   - openai*.go: OpenAI's Chat Completions API under /v1, with its larger
//     body limit (openai_bodylimit.go).
//   - auth*.go: who may do what: tokens and roles (auth.go), class sharing
//     (auth_share.go), the guard against other web pages (auth_guard.go),
//     and connections that have shown no token yet (auth_admission.go).
//
// GET /metrics serves Config.Metrics, Prometheus metrics that package
// telemetry counts; a request's W3C trace context goes with the run it
// starts (launch, in api_runs.go).
//
// What they share: the server and its routes (server.go), the listener
// (listen.go), limits, security headers (protocol.go), strict JSON bodies
// (decode.go), a request's settings read through engine.Settings.Apply
// (request.go), and the one SSE writer both event streams use (sse.go).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools/mcp"
)

// Defaults of Config fields left zero.
const (
	DefaultHeartbeat = 15 * time.Second
	DefaultBodyLimit = 64 << 10
	// DefaultV1BodyLimit is the OpenAI API's: an agent sends its system
	// prompt, its tools and the whole history, files it read included, at
	// each turn.
	DefaultV1BodyLimit = 8 << 20
	// DefaultReadTimeout bounds reading one request, headers and body: a
	// client that never finishes one (slowloris) is dropped after it.
	DefaultReadTimeout = 10 * time.Second
	// DefaultWriteTimeout bounds writing one response, and each write of an
	// event stream: a viewer that stops reading is dropped after it.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a kept-alive connection may wait for
	// its next request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultHeaderLimit is the largest request head: browsers send every
	// cookie set for localhost, whatever port set it.
	DefaultHeaderLimit = 16 << 10
)

// Config sets up a Server.
type Config struct {
	Hub *runs.Hub
	// Engine builds each run's agent. Its settings are the server's
	// defaults, which a request may override; its backend is the one the
	// page, /api/health and /api/models describe.
	Engine       *engine.Engine
	Heartbeat    time.Duration // SSE comment interval on idle streams
	BodyLimit    int           // largest request body, in bytes, but on /v1
	V1BodyLimit  int           // largest body of an OpenAI API request, in bytes
	ReadTimeout  time.Duration // see DefaultReadTimeout
	WriteTimeout time.Duration // see DefaultWriteTimeout
	IdleTimeout  time.Duration // see DefaultIdleTimeout
	// MaxConns is the most connections served at once; more are answered
	// 503 and closed. Each event stream holds one.
	MaxConns int
	// Strangers bounds the connections that have not shown a token yet.
	Strangers StrangerLimits
	// Access says who may use the server: tokens, allowed host names,
	// the addresses to share.
	Access Access
	// APIStubs offers the built-in stub tools to OpenAI API requests that
	// bring no tools of their own; the MCP servers' tools are offered
	// either way. Off by default: a stub only pretends (send_mail sends
	// nothing), which an app's user would not know.
	APIStubs bool
	// ShareAPIRuns lets the viewer link see the runs of the HTTP APIs
	// (/v1, /api/query) as well as the page's. Off by default: an app's
	// requests carry its system prompt, and whatever secrets that holds.
	ShareAPIRuns bool
	// EvalOptions are given to the engines an eval from the page starts
	// for its cases' tools, such as engine.WithProgram for the bundled
	// suites' "toolscope mcp …" servers.
	EvalOptions []engine.Option
	// Metrics, when set, serves GET /metrics (Prometheus' text format),
	// to the operator alone when the server asks for tokens.
	Metrics http.Handler
}

// Server serves the playground. Create it with New.
type Server struct {
	cfg   Config
	app   *fiber.App
	evals evals
	pulls pulls
}

// New returns a Server with its routes set up.
func New(cfg Config) *Server {
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	if cfg.V1BodyLimit <= 0 {
		cfg.V1BodyLimit = DefaultV1BodyLimit
	}
	cfg.withLimitDefaults()
	cfg.Hub.OnIdle(returnMemory(cfg.Hub))
	s := &Server{cfg: cfg}
	s.app = fiber.New(fiber.Config{
		AppName: "toolscope",
		// Every string a handler reads from the request is its own copy:
		// runs, sign-ins and evals outlive the request, and Fiber's strings
		// otherwise point into a buffer the connection's next request
		// overwrites (a signed-in server once came back as "semote").
		Immutable:      true,
		BodyLimit:      cfg.BodyLimit,
		ReadTimeout:    cfg.ReadTimeout,
		WriteTimeout:   cfg.WriteTimeout,
		IdleTimeout:    cfg.IdleTimeout,
		ReadBufferSize: DefaultHeaderLimit,
		// An event stream would otherwise hold its connection's read and
		// write buffers, 20 KiB, for as long as it runs.
		ReduceMemoryUsage:     true,
		DisableStartupMessage: true,
		ErrorHandler:          s.errorHandler,
	})
	s.app.Server().HeaderReceived = s.requestLimits
	s.routes()
	return s
}

func (s *Server) routes() {
	// Before authorize: the OAuth state, not a token, admits it (api_oauth.go).
	s.app.Get(mcp.CallbackPath, closeStrangers, securityHeaders, s.guard, s.oauthCallback)
	s.app.Use(closeStrangers, securityHeaders, s.guard, s.authorize, requireJSON)
	s.app.Get("/", s.pageAudience, s.page)
	s.app.Use("/static", filesystem.New(filesystem.Config{Root: http.FS(web.Static), PathPrefix: "static", MaxAge: 0}))
	api := s.app.Group("/api")
	api.Post("/runs", s.startRun)
	api.Post("/query", s.query)
	api.Get("/runs/latest", s.latestRun) // before /runs/:id, which would take it
	api.Get("/runs/:id", s.getRun)
	api.Get("/runs/:id/events", s.streamEvents)
	api.Get("/runs/:id/export", s.exportRun)
	api.Post("/runs/:id/cancel", s.cancelRun)
	api.Post("/runs/:id/continue", s.continueRun)
	api.Post("/runs/:id/asks/:ask", s.answerAsk)
	api.Post("/runs/:id/rerun", s.rerunRun)
	api.Post("/evals", s.startEval)
	api.Get("/evals/suites", s.listSuites) // before /evals/:id, which would take them
	api.Get("/evals/latest", s.latestEval)
	api.Get("/evals/:id", s.getEval)
	api.Get("/evals/:id/events", s.streamEval)
	api.Post("/evals/:id/cancel", s.cancelEval)
	api.Post("/pull", s.startPull)
	api.Get("/pull", s.latestPull)
	api.Get("/pull/events", s.streamPull)
	api.Post("/pull/cancel", s.cancelPull)
	api.Get("/health", s.health)
	api.Get("/settings", s.listSettings)
	api.Get("/models", s.models)
	api.Get("/tools", s.tools)
	api.Get("/mcp", s.mcpServers)
	api.Post("/mcp/servers/:name/authorize", s.signIn)
	api.Get("/mcp/resources", s.mcpResources)
	api.Get("/mcp/resources/read", s.readMCPResource)
	api.Get("/mcp/prompts", s.mcpPrompts)
	api.Post("/mcp/prompts/get", s.getMCPPrompt)
	api.Get("/share/qr.png", s.shareQR)
	api.Get("/runs", s.listRuns)
	if s.cfg.Metrics != nil {
		s.app.Get("/metrics", adaptor.HTTPHandler(s.cfg.Metrics))
	}
	s.openAIRoutes()
	s.app.Use(s.noRoute)
}

// Serve answers requests on ln until Shutdown. Running out of file
// descriptors does not end it: it waits for some to be freed.
func (s *Server) Serve(ln net.Listener) error {
	return s.app.Listener(guardListener(ln, s.cfg.MaxConns, s.cfg.Strangers))
}

// Shutdown stops accepting requests, cancels every run, and waits for open
// requests, event streams included, to end or for ctx to end.
func (s *Server) Shutdown(ctx context.Context) error {
	// Ending the runs ends their event streams too.
	s.evals.stop()
	s.pulls.stop()
	return errors.Join(s.cfg.Hub.Shutdown(ctx), s.app.ShutdownWithContext(ctx))
}

// errorHandler answers every error as JSON: {"error": "…"}.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	setSecurityHeaders(c) // protocol errors reach here without the middleware
	status := fiber.StatusInternalServerError
	var fe *fiber.Error
	var ae *apiError
	switch {
	case errors.As(err, &fe):
		status = fe.Code
	case errors.As(err, &ae):
		status = ae.Status
	}
	if status == fiber.StatusRequestEntityTooLarge {
		if status, err = s.refuseBody(c); err == nil {
			return nil // the page that says what link to open
		}
	}
	if isOpenAI(c) {
		return openAIError(c, status, err)
	}
	var me *engine.ModelError
	if errors.As(err, &me) {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": `"model" ` + strings.TrimPrefix(me.Error(), "model "), "models": me.Served})
	}
	msg := err.Error()
	if status == fiber.StatusRequestHeaderFieldsTooLarge {
		msg = "the request's headers are too large: send at most " + byteSize(c.App().Config().ReadBufferSize) + "; clearing this site's cookies may help"
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
