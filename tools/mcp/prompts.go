package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerPrompts is what one server offers as prompts.
type ServerPrompts struct {
	Server string `json:"server"`
	State  State  `json:"state"`
	// Offered: the server declared the prompts capability.
	Offered bool          `json:"offered"`
	Prompts []*sdk.Prompt `json:"prompts"`
	// Error says why listing them failed; the list is then the last that
	// succeeded.
	Error string `json:"error,omitempty"`
	// Listing: the first listing, which runs once the server is ready,
	// has not ended yet; the lists are empty until it has.
	Listing bool `json:"listing,omitempty"`
}

// ErrPromptArguments is the error of a prompts/get that leaves out an
// argument the prompt requires, before it is sent.
var ErrPromptArguments = errors.New("missing prompt arguments")

// Prompts lists the prompts of the server named, or of every server for
// "", in the order of the specs.
func (h *Hub) Prompts(name string) ([]ServerPrompts, error) {
	servers, err := h.pick(name)
	if err != nil {
		return nil, err
	}
	out := make([]ServerPrompts, len(servers))
	for i, s := range servers {
		out[i] = ServerPrompts{Server: s.name, State: s.currentState(), Prompts: []*sdk.Prompt{}}
		if out[i].State != StateReady {
			continue
		}
		caps := s.declared()
		out[i].Offered = caps != nil && caps.Prompts != nil
		c := s.catalog
		out[i].Listing = c.firstListing()
		c.mu.Lock()
		out[i].Prompts, out[i].Error = orEmpty(c.prompts), c.promptsErr
		c.mu.Unlock()
	}
	return out, nil
}

// GetPrompt gets the prompt of the server named with args filled in
// (prompts/get), waiting at most the Hub's Timeout. An argument the
// listed prompt requires and args lack is refused before anything is
// sent, with ErrPromptArguments.
func (h *Hub) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) (*sdk.GetPromptResult, error) {
	if prompt == "" {
		return nil, errors.New("no prompt name: name the prompt to get")
	}
	s, err := h.server(name)
	if err != nil {
		return nil, err
	}
	session, err := s.ready()
	if err != nil {
		return nil, err
	}
	if missing := s.catalog.missingArguments(prompt, args); len(missing) > 0 {
		return nil, kindOf{fmt.Errorf("prompt %q of MCP server %q needs %s", prompt, s.name, strings.Join(missing, ", ")), ErrPromptArguments}
	}
	ctx, cancel := s.requestContext(ctx)
	defer cancel()
	res, err := session.GetPrompt(askingRequest(ctx, "prompts/get"), &sdk.GetPromptParams{Name: prompt, Arguments: args})
	if err != nil {
		return nil, s.requestError(ctx, "prompts/get", err)
	}
	return res, nil
}

// missingArguments names the required arguments of the listed prompt
// that args lacks or leaves empty.
func (c *catalog) missingArguments(prompt string, args map[string]string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing []string
	for _, p := range c.prompts {
		if p.Name != prompt {
			continue
		}
		for _, a := range p.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				missing = append(missing, fmt.Sprintf("%q", a.Name))
			}
		}
	}
	return missing
}

// listPrompts fetches every page of the server's prompts, if it offers
// any; a failure is kept as listResources keeps one.
func (s *server) listPrompts(ctx context.Context) {
	if caps := s.declared(); caps == nil || caps.Prompts == nil {
		return
	}
	prompts, err := collect(s.session.Prompts(ctx, nil))
	c := s.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.promptsErr = "listing its prompts failed: " + s.requestError(ctx, "prompts/list", err).Error()
		s.logger.Warn("listing an MCP server's prompts failed", "error", err)
		return
	}
	c.prompts, c.promptsErr = prompts, ""
}

// PromptRequest is the request a prompt's messages make, for the user to
// send as their own: each message's content as the model would read it
// in a tool result (text as it is, an embedded resource as its text,
// other content described), the messages apart by a blank line. When the
// assistant speaks in them too, each message starts with its role
// ("User: …", "Assistant: …"), since a request is one user turn.
func PromptRequest(res *sdk.GetPromptResult) string {
	labelled := false
	for _, m := range res.Messages {
		labelled = labelled || m.Role != "user"
	}
	parts := make([]string, 0, len(res.Messages))
	for _, m := range res.Messages {
		text := ""
		if m.Content != nil {
			text = contentText(m.Content)
		}
		if labelled {
			role := string(m.Role)
			if role != "" {
				role = strings.ToUpper(role[:1]) + role[1:]
			}
			text = role + ": " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n")
}
