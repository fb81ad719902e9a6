package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
)

// queryRequest is the body of POST /api/query, MCP_from_scratch's
// endpoint, besides its settings: those of POST /api/runs, with
// tools_top_k spelled "k" (querySpelling), how many tools to offer for
// the query.
type queryRequest struct {
	Query string `json:"query"`
}

// queryAnswer is what POST /api/query answers once the run has ended.
type queryAnswer struct {
	FinalText string    `json:"final_text"`
	ToolCalls []ranCall `json:"tool_calls"`
	// RawModelOutput is every round's reply as the model streamed it, tool
	// calls included, rounds one after another.
	RawModelOutput string   `json:"raw_model_output"`
	ToolsOffered   []string `json:"tools_offered"`
	RunID          string   `json:"run_id"`
}

// query runs the loop to the end for one request and answers with what
// happened. The run is kept and listed like any other, so the page can
// show it.
func (s *Server) query(c *fiber.Ctx) error {
	var req queryRequest
	values, err := decodeRequest(c.Body(), &req, "query", `{"query": "…", "k": 5}`, querySpelling)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	settings, err := applySettings(s.cfg.Engine.Settings(), values, querySpelling, emptyMessage("query", req.Query)...)
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	run, err := s.launch(c, settings, engine.Toolset{}, runs.Spec{Message: req.Query, Source: runs.SourceAPI, UserAgent: c.Get(fiber.HeaderUserAgent)})
	if err != nil {
		return err
	}
	answer, failure := collect(run, c)
	if failure != "" {
		return fiber.NewError(fiber.StatusBadGateway, failure)
	}
	return writeJSON(c, fiber.StatusOK, answer)
}

// collect reads run's events until it ends; failure says why a run that
// did not answer ended.
func collect(run *runs.Run, c *fiber.Ctx) (answer queryAnswer, failure string) {
	t := transcript.New()
	for e := range run.Events(c.UserContext(), 0) {
		t.Add(e)
	}
	answer = queryAnswer{RunID: run.ID, ToolCalls: ranCalls(t), ToolsOffered: []string{}, RawModelOutput: t.Raw()}
	if t.Run != nil {
		answer.ToolsOffered = append(answer.ToolsOffered, t.Run.Tools...)
	}
	if t.Failure != nil {
		failure = t.Failure.Error
	}
	if t.Finish == nil {
		return answer, failure
	}
	answer.FinalText = t.Finish.Answer
	switch t.Finish.Reason {
	case agent.Answered, agent.MaxRounds:
		failure = ""
	case agent.Cancelled:
		failure = "the run was stopped before it answered"
	case agent.CutOff:
		failure = "the reply was cut off: the model reached its context or token limit"
	}
	return answer, failure
}
