package server

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

func (s *Server) page(c *fiber.Ctx) error {
	info := s.cfg.Backend.Info()
	data := web.PageData{
		Backend: info.Backend, Model: info.Model, Mode: info.Mode, Demo: info.Demo,
		Dialect: s.cfg.Dialect, Dialects: streamparser.DialectNames(),
		MaxRounds: s.cfg.MaxRounds, ToolDelayMS: int(s.cfg.ToolDelay.Milliseconds()), Think: s.cfg.Think,
	}
	for _, t := range s.cfg.Tools() {
		data.Tools = append(data.Tools, web.ToolInfo{
			Name: t.Name(), Description: t.Description(), Source: tools.SourceOf(t), Parameters: indent(t.Parameters()),
		})
	}
	if s.cfg.MCP != nil {
		for _, m := range s.cfg.MCP() {
			data.MCPServers = append(data.MCPServers, web.MCPServer{
				Name: m.Name, Target: m.Target, Transport: m.Transport, State: string(m.State), Error: m.Error, Log: m.Log,
			})
		}
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
