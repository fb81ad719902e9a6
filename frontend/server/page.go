package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/tools"
)

func (s *Server) page(c *fiber.Ctx) error {
	e := s.cfg.Engine
	info := e.Backend().Info()
	data := web.PageData{
		Backend: info.Backend, Model: info.Model, Mode: string(info.Mode), Demo: info.Demo, Template: info.Template, BaseURL: info.BaseURL,
		Settings: formControls(e.Settings(), info.Model, info.Demo), Fallback: fallbackOf(e.Fallback(), roleOfRequest(c) == operator),
	}
	for _, t := range e.Tools() {
		data.Tools = append(data.Tools, web.ToolInfo{
			Name: t.Name(), Description: t.Description(), Source: tools.SourceOf(t), Parameters: indent(t.Parameters()),
		})
	}
	for _, m := range e.MCPServers() {
		data.MCPServers = append(data.MCPServers, web.MCPServer{
			Name: m.Name, Target: m.Target, Transport: m.Transport, State: string(m.State), Protocol: m.Protocol, Error: m.Error, Log: m.Log, SignIn: m.SignIn,
		})
	}
	c.Type("html", "utf-8")
	return web.Page(data).Render(c.UserContext(), c.Response().BodyWriter())
}

// fallbackOf words f for the page, or returns nil for nil. Its next step
// fits a person who ran ./start.sh: the backend was chosen at start, so
// whatever fixes Ollama takes a restart to use, but for a missing model,
// which the operator may pull from the page (api_pull.go); the banner
// never points at a flag they did not type.
func fallbackOf(f *engine.Fallback, operator bool) *web.Fallback {
	if f == nil {
		return nil
	}
	out := &web.Fallback{Problem: f.Problem(), Next: "Restart toolscope (./start.sh) once Ollama answers, to use it."}
	fix := f.Fix()
	if fix == nil || fix.Do == "" {
		return out
	}
	step := fix.Do
	if operator && errors.Is(f.Cause, ollama.ErrNotPulled) {
		out.Pull, out.PullSize = f.Model, ollama.SizeHint(f.Model)
		out.Next = "Pull it here, and toolscope switches to it once Ollama has it. Or " + step + ", then restart toolscope (./start.sh)."
		return out
	}
	if fix.Setting == engine.SettingBackend && f.Model != "" {
		// Ollama did not answer at all, so the model may be missing too.
		step += " and pull the model with 'ollama pull " + f.Model + "'"
	}
	out.Next = strings.ToUpper(step[:1]) + step[1:] + ", then restart toolscope (./start.sh) to use it."
	return out
}

func indent(schema json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, schema, "", "  ") != nil {
		return string(schema)
	}
	return b.String()
}
