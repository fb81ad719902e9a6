package server

import (
	"bytes"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/recording"
)

// exportRun sends a finished run as a recording, a JSON Lines file that
// `toolscope replay` and the page play without a model.
func (s *Server) exportRun(c *fiber.Ctx) error {
	run, err := s.lookupRun(c)
	if err != nil {
		return err
	}
	snap := run.Snapshot()
	// A recording that stops midway would replay as a run cut short.
	switch {
	case snap.Status == "paused":
		return fiber.NewError(fiber.StatusConflict, fmt.Sprintf("run %q is paused in step mode: continue it to its end (POST /api/runs/%s/continue), or cancel it (POST /api/runs/%s/cancel), then export it", run.ID, run.ID, run.ID))
	case !snap.Done:
		return fiber.NewError(fiber.StatusConflict, fmt.Sprintf("run %q is still going: export it once it has finished, or stop it first", run.ID))
	}
	h := recording.NewHeader(recording.Run{ID: run.ID, ConversationID: run.ConversationID, Message: run.Message,
		Source: string(run.Source), StartedAt: run.Started.UTC()}, snap.Events)
	var b bytes.Buffer
	if err := recording.Write(&b, h, snap.Events); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/x-ndjson; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="toolscope-`+run.ID+`.jsonl"`)
	return c.Send(b.Bytes())
}
