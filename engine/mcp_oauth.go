package engine

import (
	"context"
	"errors"
	"net/url"

	"github.com/toolscope/toolscope/tools/mcp"
)

// WithMCPOAuth says where MCP servers' sign-ins are kept and how the user
// is asked to sign in: in a terminal (o.Open set) or from the page.
func WithMCPOAuth(o mcp.OAuthOptions) Option {
	return func(e *Engine) { e.oauth = o }
}

var errNoMCP = errors.New("no MCP servers are connected")

// MCPSignIn starts the sign-in of the MCP server named name, the browser
// to come back to redirectURL, and returns the authorization URL to open
// (see mcp.Hub.SignIn).
func (e *Engine) MCPSignIn(ctx context.Context, name, redirectURL string) (string, error) {
	if e.hub == nil {
		return "", errNoMCP
	}
	return e.hub.SignIn(ctx, name, redirectURL)
}

// MCPCallback hands a sign-in's callback to the MCP server it belongs to
// (see mcp.Hub.Callback).
func (e *Engine) MCPCallback(q url.Values) (string, error) {
	if e.hub == nil {
		return "", mcp.ErrUnknownState
	}
	return e.hub.Callback(q)
}
