package server

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/tools"
)

func (s *Server) page(c *fiber.Ctx) error {
	e := s.cfg.Engine
	info := e.Backend().Info()
	data := web.PageData{
		Backend: info.Backend, Model: info.Model, Mode: string(info.Mode), Demo: info.Demo, Template: info.Template, BaseURL: info.BaseURL,
		Settings: e.Settings(), Allowed: engine.Allowed(), Fallback: web.FallbackOf(e.Fallback()),
	}
	for _, t := range e.Tools() {
		data.Tools = append(data.Tools, web.ToolInfo{
			Name: t.Name(), Description: t.Description(), Source: tools.SourceOf(t), Parameters: indent(t.Parameters()),
		})
	}
	for _, m := range e.MCPServers() {
		data.MCPServers = append(data.MCPServers, web.MCPServer{
			Name: m.Name, Target: m.Target, Transport: m.Transport, State: string(m.State), Error: m.Error, Log: m.Log,
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
