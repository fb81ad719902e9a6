package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools"
)

var _ tools.Sourced = (*remoteTool)(nil)

// remoteTool is a tool that lives on an MCP server.
type remoteTool struct {
	server *server
	name   string // what the model calls it; the server's name for it, or one prefixed with the server's
	remote *sdk.Tool
	schema json.RawMessage // its inputSchema, in the server's order: see listedSchemas.parameters
}

func (t *remoteTool) Name() string { return t.name }

func (t *remoteTool) Description() string {
	if t.remote.Description == "" {
		return t.remote.Title
	}
	return t.remote.Description
}

// Parameters is the tool's inputSchema, as the server wrote it, with its
// properties in the server's order. A server that leaves out the
// "type": "object" every inputSchema must have gets it added, rather than
// losing the tool.
func (t *remoteTool) Parameters() json.RawMessage { return t.schema }

// Source names the server, as in "mcp:calculator".
func (t *remoteTool) Source() string { return "mcp:" + t.server.name }

// Call sends tools/call and turns the result into the text the model
// reads. A result with isError becomes an error carrying the server's
// text, which the model reads as {"error": …}.
func (t *remoteTool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return t.server.call(ctx, t.remote.Name, args)
}

// cancelNoticeWait bounds the wait for the SDK to send
// notifications/cancelled after a call is abandoned. It sends it at once,
// off the caller's path; waiting lets the recorder show it with the call.
const cancelNoticeWait = time.Second

func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	session, err := s.usable()
	if err != nil {
		return "", err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.ctx, func() { cancel(context.Cause(s.ctx)) })
	defer stop()
	if !tools.CallerTimesOut(ctx) {
		var cancelTimeout context.CancelFunc
		callCtx, cancelTimeout = context.WithTimeoutCause(callCtx, s.opts.Timeout, errCallTimeout)
		defer cancelTimeout()
	}

	token, tapped, untrack := s.tap.track(callCtx)
	defer untrack()
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	// The token lets the wiretap tell this call's messages from others';
	// servers may also report progress against it.
	meta := sdk.Meta{"progressToken": token}
	callCtx, span := s.traceCall(callCtx, tool, meta)
	res, err := session.CallTool(askingRequest(callCtx, "tools/call"), &sdk.CallToolParams{Name: tool, Arguments: args, Meta: meta})
	s.endCall(span, session, tapped, err == nil && res.IsError, err, context.Cause(callCtx))
	switch {
	case err == nil:
		text := resultText(res)
		if res.IsError {
			if text == "" {
				text = fmt.Sprintf("%s failed without saying why", tool)
			}
			return "", errors.New(text)
		}
		return text, nil
	case callCtx.Err() != nil:
		return "", s.abandoned(tool, context.Cause(callCtx), tapped)
	}
	// On 2026-07-28 an ask in the call's result that toolscope refused
	// ends the call, on toolscope's side.
	var refused *refusal
	if errors.As(err, &refused) {
		return "", fmt.Errorf("MCP server %q asked for input during the call to %s, and toolscope refused: %s", s.name, tool, refused)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return "", fmt.Errorf("MCP server %q refused the call to %s: %s", s.name, tool, rpcErr.Message)
	}
	if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "", s.crashed(tool, err)
	}
	return "", fmt.Errorf("MCP server %q: the call to %s failed: %w", s.name, tool, err)
}

// abandoned explains a call that ended before its answer came.
func (s *server) abandoned(tool string, cause error, tapped *tappedCall) error {
	switch {
	case errors.Is(cause, errStopped):
		return s.crashed(tool, cause)
	case errors.Is(cause, errClosed):
		return fmt.Errorf("MCP server %q was shut down during the call to %s", s.name, tool)
	}
	// The server is still there, and is being told to stop.
	select {
	case <-tapped.cancelled:
	case <-time.After(cancelNoticeWait):
	}
	if errors.Is(cause, errCallTimeout) {
		return fmt.Errorf("MCP server %q did not answer the call to %s within %s, so toolscope cancelled it; if the tool is just slow, allow it a longer tool timeout", s.name, tool, s.opts.Timeout)
	}
	// cause is a context error: its text ("context canceled") says nothing
	// a person or a model can act on.
	return fmt.Errorf("the call to %s on MCP server %q was stopped before it answered", tool, s.name)
}

// resultText is the text of a tool result, one line or paragraph per
// content block. A model reads text only, so other content is described.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(data))
		}
	}
	return strings.Join(parts, "\n")
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %s]", c.MIMEType, size(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %s]", c.MIMEType, size(len(c.Data)))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s]", labelled(c.Name, c.URI))
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Text != "" {
			return r.Text
		}
		return fmt.Sprintf("[resource: %s, %s, %s]", r.URI, r.MIMEType, size(len(r.Blob)))
	}
	return fmt.Sprintf("[%T]", c)
}

func labelled(name, uri string) string {
	if name == "" || name == uri {
		return uri
	}
	return name + " <" + uri + ">"
}

// size reads like "12 KB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
