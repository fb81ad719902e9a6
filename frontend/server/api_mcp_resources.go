package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/tools/mcp"
)

// The MCP servers' resources and prompts, for the side panel:
//
//	GET  /api/mcp/resources[?server=]          each server's resources and templates
//	GET  /api/mcp/resources/read?server=&uri=  one resource's contents
//	GET  /api/mcp/prompts[?server=]            each server's prompts, with their arguments
//	POST /api/mcp/prompts/get                  a prompt's messages, and the request they make
//
// and the resources a run request attaches (runRequest.Resources), read
// here into the user's turn. Like GET /api/mcp, they are the operator's:
// the viewer link reads none of them.

// maxResourceBytes bounds one content of a resource that is read: a
// page shows it, and a request attaching it sends it to the model.
const maxResourceBytes = 1 << 20

// maxAttached bounds the resources one request attaches.
const maxAttached = 8

func (s *Server) mcpResources(c *fiber.Ctx) error {
	hub := s.cfg.Engine.MCP()
	if hub == nil {
		if name := c.Query("server"); name != "" {
			return mcpError(noServer(name), "")
		}
		return writeJSON(c, fiber.StatusOK, fiber.Map{"servers": []mcp.ServerResources{}})
	}
	list, err := hub.Resources(c.Query("server"))
	if err != nil {
		return mcpError(err, "")
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"servers": list})
}

func (s *Server) mcpPrompts(c *fiber.Ctx) error {
	hub := s.cfg.Engine.MCP()
	if hub == nil {
		if name := c.Query("server"); name != "" {
			return mcpError(noServer(name), "")
		}
		return writeJSON(c, fiber.StatusOK, fiber.Map{"servers": []mcp.ServerPrompts{}})
	}
	list, err := hub.Prompts(c.Query("server"))
	if err != nil {
		return mcpError(err, "")
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"servers": list})
}

// noServer is the error of a server named where toolscope has none.
func noServer(name string) error {
	return fmt.Errorf("%w %q: toolscope was started with no MCP servers", mcp.ErrNoServer, name)
}

// resourceContent is one content of a resource read: its text, or its
// blob in base64 as MCP carries it; size is in bytes, the blob's decoded.
type resourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"`
	Size     int    `json:"size"`
}

func (s *Server) readMCPResource(c *fiber.Ctx) error {
	server, uri := c.Query("server"), c.Query("uri")
	if server == "" || uri == "" {
		return fiber.NewError(fiber.StatusBadRequest, `name the resource to read: ?server=NAME&uri=URI, as GET /api/mcp/resources lists them`)
	}
	res, err := s.readResource(c.UserContext(), server, uri)
	if err != nil {
		return err
	}
	contents := make([]resourceContent, len(res.Contents))
	for i, rc := range res.Contents {
		contents[i] = resourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob, Size: len(rc.Text) + len(rc.Blob)}
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"server": server, "uri": uri, "contents": contents})
}

// readResource reads a resource and checks its size, its errors worded
// for the API.
func (s *Server) readResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error) {
	hub := s.cfg.Engine.MCP()
	if hub == nil {
		return nil, mcpError(noServer(server), "")
	}
	res, err := hub.ReadResource(ctx, server, uri)
	if err != nil {
		return nil, mcpError(err, uri)
	}
	total := 0
	for _, rc := range res.Contents {
		kind, n := "text", len(rc.Text)
		if rc.Blob != nil {
			kind, n = "blob ("+mcp.MIMEType(rc.MIMEType)+")", len(rc.Blob)
		}
		if n > maxResourceBytes {
			// 422, not 413, which speaks of the request's body.
			return nil, fiber.NewError(fiber.StatusUnprocessableEntity, fmt.Sprintf(
				"resource %q of MCP server %q is a %s of %s, more than the %s toolscope shows or attaches; read it with another MCP client",
				rc.URI, server, kind, byteSize(n), byteSize(maxResourceBytes)))
		}
		total += n
	}
	if total > maxResourceBytes {
		// Many contents, each under the limit, are no way around it.
		return nil, fiber.NewError(fiber.StatusUnprocessableEntity, fmt.Sprintf(
			"resource %q of MCP server %q holds %d contents of %s in all, more than the %s toolscope shows or attaches; read it with another MCP client",
			uri, server, len(res.Contents), byteSize(total), byteSize(maxResourceBytes)))
	}
	return res, nil
}

// promptRequest is the body of POST /api/mcp/prompts/get.
type promptRequest struct {
	Server    string            `json:"server"`
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
}

func (s *Server) getMCPPrompt(c *fiber.Ctx) error {
	var req promptRequest
	if err := decodeStrict(c.Body(), &req, "prompt request", `{"server": "…", "name": "…", "arguments": {…}}`); err != nil {
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	if req.Server == "" || req.Name == "" {
		return fiber.NewError(fiber.StatusBadRequest, `name the prompt: "server" and "name", as GET /api/mcp/prompts lists them`)
	}
	hub := s.cfg.Engine.MCP()
	if hub == nil {
		return mcpError(noServer(req.Server), "")
	}
	res, err := hub.GetPrompt(c.UserContext(), req.Server, req.Name, req.Arguments)
	if err != nil {
		return mcpError(err, "")
	}
	messages := res.Messages
	if messages == nil {
		messages = []*sdk.PromptMessage{}
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{
		"server": req.Server, "name": req.Name, "description": res.Description,
		"messages": messages, "request": mcp.PromptRequest(res),
	})
}

// mcpError gives a hub's error its status: an unknown server or resource
// is 404, a prompt's missing argument 400, a server not connected 503,
// and a server that refused or failed otherwise 502. uri is the resource
// asked for, if any.
func mcpError(err error, uri string) error {
	var refused *mcp.RefusedError
	switch {
	case errors.Is(err, mcp.ErrNoServer):
		return fiber.NewError(fiber.StatusNotFound, err.Error())
	case errors.Is(err, mcp.ErrPromptArguments):
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	case errors.Is(err, mcp.ErrUnavailable):
		return fiber.NewError(fiber.StatusServiceUnavailable, err.Error())
	case errors.As(err, &refused) && refused.Method == "resources/read" && refused.NotFound():
		return fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("MCP server %q has no resource %q: %s", refused.Server, uri, refused.Message))
	case errors.As(err, &refused) && refused.NotFound():
		// prompts/get: an unknown prompt, or arguments it does not take.
		return fiber.NewError(fiber.StatusBadRequest, err.Error())
	}
	return fiber.NewError(fiber.StatusBadGateway, err.Error())
}

// attachedResource names a resource a run request attaches.
type attachedResource struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// withResources is message with the resources refs name read into it,
// before it, each as mcp.AttachedResource words it: the user's turn, as
// the run records it and the model reads it.
func (s *Server) withResources(ctx context.Context, refs []attachedResource, message string) (string, error) {
	if len(refs) > maxAttached {
		return "", fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf(`"resources": %d attached, more than the %d a request may attach`, len(refs), maxAttached))
	}
	parts := make([]string, 0, len(refs)+1)
	attached := 0
	for i, ref := range refs {
		if ref.Server == "" || ref.URI == "" {
			return "", fiber.NewError(fiber.StatusBadRequest, fmt.Sprintf(`"resources"[%d]: name the resource: {"server": "…", "uri": "…"}`, i))
		}
		res, err := s.readResource(ctx, ref.Server, ref.URI)
		if err != nil {
			var fe *fiber.Error
			if errors.As(err, &fe) {
				return "", fiber.NewError(fe.Code, fmt.Sprintf(`"resources"[%d]: %s`, i, fe.Message))
			}
			return "", err
		}
		parts = append(parts, mcp.AttachedResource(ref.Server, res))
		if attached += len(parts[i]); attached > maxResourceBytes {
			return "", fiber.NewError(fiber.StatusUnprocessableEntity, fmt.Sprintf(
				`"resources": the %d resources attached come to more than the %s a request may attach; attach fewer`, i+1, byteSize(maxResourceBytes)))
		}
	}
	return strings.Join(append(parts, message), "\n\n"), nil
}
