package server

import (
	"bytes"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// continueRun ends a paused run's pause: an empty body goes on unchanged,
// an agent.Edit changes what is about to happen. 409 when the run is not
// paused, 400 for an edit that does not fit what it waits on.
func (s *Server) continueRun(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	var edit agent.Edit
	if body := bytes.TrimSpace(c.Body()); len(body) > 0 {
		if err := decodeStrict(body, &edit, "edit", `{"result": "…"}`); err != nil {
			return fiber.NewError(fiber.StatusBadRequest, err.Error())
		}
	}
	err = run.Continue(edit)
	var ee *agent.EditError
	switch {
	case errors.Is(err, runs.ErrNotPaused):
		return fiber.NewError(fiber.StatusConflict, err.Error())
	case errors.As(err, &ee):
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	case err != nil:
		return err
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"id": run.ID, "continued": true})
}
