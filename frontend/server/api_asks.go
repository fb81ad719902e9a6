package server

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// answerAsk answers the question an MCP server asked during a run's tool
// call (an elicitation, or a sampling reply to approve in step mode),
// which the run waits on: the body is an agent.Reply. 409 when the run
// does not wait on that ask, 400 for a reply that does not fit it.
func (s *Server) answerAsk(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	id, err := strconv.Atoi(c.Params("ask"))
	if err != nil || id < 1 {
		return fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf("the ask %q is not a number from 1, as events number them (ask.id)", c.Params("ask")))
	}
	var reply agent.Reply
	if err := decodeStrict(c.Body(), &reply, "reply", `{"action": "accept", "content": {…}}`); err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	err = run.Reply(id, reply)
	var bad *runs.BadReplyError
	switch {
	case errors.Is(err, runs.ErrNotAsking), errors.Is(err, runs.ErrNotPaused):
		return fiber.NewError(fiber.StatusConflict, err.Error())
	case errors.As(err, &bad):
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	case err != nil:
		return err
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"id": run.ID, "ask": id, "answered": true})
}
