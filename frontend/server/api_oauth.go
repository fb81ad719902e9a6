package server

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/toolscope/toolscope/tools/mcp"
)

// signIn starts the OAuth sign-in of an MCP server that asks for one:
// POST /api/mcp/servers/{name}/authorize answers {"url": …}, the
// authorization page for the browser to open. The browser comes back to
// this very address's /oauth/callback, so the Host header the guard let
// through names the redirect.
func (s *Server) signIn(c *fiber.Ctx) error {
	name, err := url.PathUnescape(c.Params("name"))
	if err != nil {
		return fiber.NewError(fiber.StatusBadRequest, "the server's name is not a valid path segment")
	}
	redirect := (&url.URL{Scheme: "http", Host: c.Get(fiber.HeaderHost), Path: mcp.CallbackPath}).String()
	authURL, err := s.cfg.Engine.MCPSignIn(c.UserContext(), name, redirect)
	var signIn *mcp.SignInError
	switch {
	case errors.As(err, &signIn):
		return fiber.NewError(fiber.StatusBadGateway, err.Error())
	case err != nil:
		return fiber.NewError(fiber.StatusConflict, err.Error())
	}
	return writeJSON(c, fiber.StatusOK, fiber.Map{"url": authURL})
}

// oauthCallback is where an authorization server sends the browser back.
// It carries no token of toolscope's: it comes from another site, whose
// redirect the SameSite cookie does not follow. The OAuth state admits it
// instead: only the sign-in that made the state takes its code, once.
func (s *Server) oauthCallback(c *fiber.Ctx) error {
	return adaptor.HTTPHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server, err := s.cfg.Engine.MCPCallback(r.URL.Query())
		mcp.WriteCallbackPage(w, server, err)
	})(c)
}
