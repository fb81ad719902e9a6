package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/runs"
)

// callerRounds bounds a run whose calls the client runs: one reply, and
// two more when the model's calls were not valid. Each retry shows the
// model why, as a tool response; after the last, the text is returned.
const callerRounds = 3

// The sentences that tell the model a call is required, after the
// client's own instructions.
const (
	mustCall      = "Answer with a call to one of the functions below."
	mustCallNamed = "Answer with a call to the function %s."
	oneCallOnly   = "Call at most one function in a reply."
)

// openAIRoutes serves OpenAI's Chat Completions API beside the page.
func (s *Server) openAIRoutes() {
	v1 := s.app.Group("/v1")
	v1.Get("/models", s.openAIModels)
	v1.Get("/models/:model", s.openAIModel)
	v1.Post("/chat/completions", s.chatCompletions)
}

// isOpenAI reports whether the request is one of the OpenAI API's, whose
// errors take OpenAI's shape.
func isOpenAI(c *fiber.Ctx) bool { return openAIPath(c.Path()) }

// openAIPath reports whether a request path is the OpenAI API's. Routes
// match whatever the case, so /V1/ is too.
func openAIPath(path string) bool {
	const prefix = "/v1/"
	return len(path) >= len(prefix) && strings.EqualFold(path[:len(prefix)], prefix)
}

// openAIError answers err in OpenAI's error shape:
// {"error": {"message", "type", "param", "code"}}.
func openAIError(c *fiber.Ctx, status int, err error) error {
	ae := &apiError{Status: status, Message: err.Error()}
	var me *engine.ModelError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &me):
		ae = &apiError{Status: fiber.StatusNotFound, Message: "the " + me.Error(), Param: "model", Code: "model_not_found"}
	}
	kind := "invalid_request_error"
	switch {
	case ae.Status == fiber.StatusUnauthorized:
		kind = "authentication_error"
	case ae.Status == fiber.StatusForbidden:
		kind = "permission_error"
	case ae.Status == fiber.StatusTooManyRequests:
		kind = "rate_limit_error"
	case ae.Status >= 500:
		kind = "server_error"
	}
	return writeJSON(c, ae.Status, fiber.Map{"error": fiber.Map{"message": ae.Message, "type": kind, "param": nullable(ae.Param), "code": nullable(ae.Code)}})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// servedModels lists the models the default backend serves: its one
// model when it cannot list them.
func (s *Server) servedModels(ctx context.Context) ([]string, error) {
	backend := s.cfg.Engine.Backend()
	l, ok := backend.(modelLister)
	if !ok {
		return []string{backend.Info().Model}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return l.Models(ctx)
}

type openAIModelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func modelInfo(id string) openAIModelInfo {
	return openAIModelInfo{ID: id, Object: "model", OwnedBy: "toolscope"}
}

func (s *Server) openAIModels(c *fiber.Ctx) error {
	models, err := s.servedModels(c.UserContext())
	if err != nil {
		return fiber.NewError(fiber.StatusBadGateway, err.Error())
	}
	data := make([]openAIModelInfo, len(models))
	for i, m := range models {
		data[i] = modelInfo(m)
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"object": "list", "data": data})
}

func (s *Server) openAIModel(c *fiber.Ctx) error {
	id := c.Params("model")
	settings, err := applySettings(s.cfg.Engine.Settings(), modelSetting(id), nil)
	if err != nil {
		return badRequest("model", "%v", err)
	}
	if err := s.checkModel(c, settings); err != nil {
		return err
	}
	return writeJSON(c, fiber.StatusOK, modelInfo(id))
}

// chatCompletions answers POST /v1/chat/completions with a run: one that
// returns the client's tool calls when it sent tools, or that runs
// toolscope's own tools to the end when it sent none.
func (s *Server) chatCompletions(c *fiber.Ctx) error {
	req, err := decodeChat(c.Body())
	if err != nil {
		return err
	}
	run, comp, err := s.startChat(c, req)
	if err != nil {
		return err
	}
	c.Set("X-Toolscope-Run", run.ID)
	if req.Stream {
		return s.streamChat(c, run, comp, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
	}
	return answerChat(c, run, comp)
}

// startChat checks the request against the engine and starts its run.
func (s *Server) startChat(c *fiber.Ctx, req *chatRequest) (*runs.Run, *completion, error) {
	// Of toolscope's settings, OpenAI's API names only the model.
	settings, err := applySettings(s.cfg.Engine.Settings(), modelSetting(req.Model), nil)
	if err != nil {
		return nil, nil, badRequest("model", "%v", err)
	}
	settings.Sampling = req.sampling // check read it, in OpenAI's ranges
	conv, asked, err := req.history(settings.Dialect)
	if err != nil {
		return nil, nil, err
	}
	toolset := req.toolset(s.cfg.APIStubs)
	if toolset.Caller != nil {
		settings.MaxRounds = callerRounds
		conv.System = joinText(conv.System, req.instructions())
	}
	run, err := s.launch(c, settings, toolset, runs.Spec{Message: asked, History: conv, Source: runs.SourceAPI, UserAgent: c.Get(fiber.HeaderUserAgent)})
	if err != nil {
		return nil, nil, err
	}
	comp := &completion{id: "chatcmpl-" + strings.TrimPrefix(run.ID, "r-"), model: req.Model, created: run.Started.Unix(),
		oneCall: req.oneCall(), returnCalls: toolset.Caller != nil,
		report: runReport{RunID: run.ID, Events: eventsPath(run.ID), ToolCalls: []ranCall{}}}
	return run, comp, nil
}

// modelSetting is a model's name as a request's settings carry it.
func modelSetting(model string) map[string]json.RawMessage {
	name, _ := json.Marshal(model) // a string
	return map[string]json.RawMessage{string(engine.SettingModel): name}
}

// instructions are what the prompt adds to the client's own for its
// tool_choice and parallel_tool_calls.
func (req *chatRequest) instructions() string {
	choice, _ := req.choice()
	var say []string
	switch {
	case choice.name != "":
		say = append(say, strings.Replace(mustCallNamed, "%s", choice.name, 1))
	case choice.mode == "required":
		say = append(say, mustCall)
	}
	if req.oneCall() && choice.mode != "none" {
		say = append(say, oneCallOnly)
	}
	return strings.Join(say, " ")
}

func joinText(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n\n" + b
}

// answerChat waits for the run and answers with the whole completion.
func answerChat(c *fiber.Ctx, run *runs.Run, comp *completion) error {
	msg := chatDelta{Role: "assistant"}
	var content strings.Builder
	comp.send = func(d chatDelta) {
		if d.Content != nil {
			content.WriteString(*d.Content)
		}
		msg.ReasoningContent += d.ReasoningContent
		msg.ToolCalls = append(msg.ToolCalls, d.ToolCalls...)
	}
	for e := range run.Events(c.UserContext(), 0) {
		comp.consume(e)
	}
	if why := comp.failed(); why != "" {
		return fiber.NewError(fiber.StatusBadGateway, why)
	}
	text := content.String()
	msg.Content = &text
	for i := range msg.ToolCalls {
		msg.ToolCalls[i].Index = nil
	}
	out := comp.chunk("chat.completion", chatChoice{Message: &msg, FinishReason: &comp.finish})
	out.Usage, out.Toolscope = &comp.usage, &comp.report
	return writeJSON(c, fiber.StatusOK, out)
}

// streamChat sends the completion as it is written: chat.completion.chunk
// frames, the last with finish_reason, a usage frame if asked, then
// [DONE]. A client that goes away stops the run, as Stop would.
func (s *Server) streamChat(c *fiber.Ctx, run *runs.Run, comp *completion, usage bool) error {
	// No heartbeats: the run streams while the client waits, and a client
	// that goes away stops it.
	s.serveSSE(c, 0, func() { run.Cancel() }, func(ctx context.Context, out *sseWriter) {
		frame(out, comp.chunk("chat.completion.chunk", chatChoice{Delta: &chatDelta{Role: "assistant", Content: new(string)}}))
		comp.send = func(d chatDelta) { frame(out, comp.chunk("chat.completion.chunk", chatChoice{Delta: &d})) }
		for e := range run.Events(ctx, 0) {
			comp.consume(e)
		}
		if ctx.Err() != nil {
			return
		}
		if why := comp.failed(); why != "" {
			out.data(mustJSON(fiber.Map{"error": fiber.Map{"message": why, "type": "server_error", "param": nil, "code": nil}}))
			return
		}
		last := comp.chunk("chat.completion.chunk", chatChoice{Delta: &chatDelta{}, FinishReason: &comp.finish})
		last.Toolscope = &comp.report
		frame(out, last)
		if usage {
			u := comp.chunk("chat.completion.chunk")
			u.Usage = &comp.usage
			frame(out, u)
		}
		out.data([]byte("[DONE]"))
	})
	return nil
}

// frame sends one chunk of a streamed completion.
func frame(out *sseWriter, v chatChunk) { out.data(mustJSON(v)) }

// mustJSON encodes values that always encode: the API's own types.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
