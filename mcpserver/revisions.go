package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statelessRevision is the first protocol revision without sessions
// (SEP-2575): its clients send server/discover rather than initialize,
// and the revision, client info and capabilities with every request.
// mcpbridge (stateless.go) holds the same constant and decides the same
// way which requests are of it; mcpserver imports no toolscope package, so
// each keeps its own.
const statelessRevision = "2026-07-28"

// revisions serves every protocol revision on one streamable HTTP
// endpoint. The SDK's handler speaks either the session-based revisions
// (initialize, then Mcp-Session-Id) or, in its stateless mode, 2026-07-28
// and later, which it refuses in the other mode; a client of either kind
// may come to the same URL, so each request goes to the handler of the
// revision it names. Both serve the same mcp.Server.
type revisions struct {
	sessions  http.Handler // initialize and Mcp-Session-Id: 2025-11-25 and older
	stateless http.Handler // 2026-07-28 and later
}

// peekLimit bounds how much of a request body is read to find the
// revision it names; the SDK bounds the body as a whole.
const peekLimit = 1 << 20

func (h *revisions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.isStateless(r) {
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.sessions.ServeHTTP(w, r)
}

// isStateless tells whether r belongs to a stateless revision. Such a
// client names it in the MCP-Protocol-Version header of every request. A
// POST that lacks the header but carries the revision in its _meta also
// goes to the stateless handler, which tells the client the header is
// missing (400, -32020, as the revision wants), where the session handler
// would only say it wants initialize.
func (h *revisions) isStateless(r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= statelessRevision
	}
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" || r.Body == nil {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, peekLimit))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return false // the handler meets the same error, and answers it
	}
	var msg struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil {
		return false
	}
	v, _ := msg.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= statelessRevision
}
