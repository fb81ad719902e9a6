package server

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/web"
)

func (s *Server) page(c *fiber.Ctx) error {
	info := s.cfg.Backend.Info()
	data := web.PageData{
		Backend: info.Backend, Model: info.Model, Mode: info.Mode, Demo: info.Demo,
		MaxRounds: s.cfg.MaxRounds, ToolDelayMS: int(s.cfg.ToolDelay.Milliseconds()), Think: s.cfg.Think,
	}
	for _, t := range s.cfg.Tools() {
		data.Tools = append(data.Tools, web.ToolInfo{
			Name: t.Name(), Description: t.Description(), Source: tools.SourceOf(t), Parameters: indent(t.Parameters()),
		})
	}
	c.Type("html", "utf-8")
	return web.Page(data).Render(c.UserContext(), c.Response().BodyWriter())
}

func indent(schema json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, schema, "", "  ") != nil {
		return string(schema)
	}
	return b.String()
}
