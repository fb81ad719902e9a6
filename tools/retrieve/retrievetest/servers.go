package retrievetest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/tools/catalogue"
)

// OllamaEmbed is a test server that answers Ollama's /api/embed with the
// StandIn embedder's vectors, for the real ollama/api client. Models not
// in its list get Ollama's 404 answer.
type OllamaEmbed struct {
	*httptest.Server
	Models []string
	// Texts counts the texts embedded so far: what a cache saves.
	Texts atomic.Int64
}

// NewOllamaEmbed starts a server that has models; Close is registered
// with t.
func NewOllamaEmbed(t testing.TB, models ...string) *OllamaEmbed {
	s := &OllamaEmbed{Models: models}
	s.Server = httptest.NewServer(http.HandlerFunc(s.embed))
	t.Cleanup(s.Close)
	return s
}

func (s *OllamaEmbed) embed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "bad request"})
		return
	}
	if !s.has(req.Model) {
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"error": "model \"" + req.Model + "\" not found, try pulling it first"})
		return
	}
	s.Texts.Add(int64(len(req.Input)))
	vecs, _ := StandIn{}.Embed(r.Context(), req.Input)
	json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
}

func (s *OllamaEmbed) has(model string) bool {
	for _, m := range s.Models {
		if m == model || m+":latest" == model || m == model+":latest" {
			return true
		}
	}
	return false
}

// MCPServer returns an MCP server that offers ts and lists them pageSize
// at a time (the SDK's default when 0), so that a client must follow
// cursors to see them all.
func MCPServer(ts []*catalogue.Tool, pageSize int) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "catalogue", Version: "test"}, &sdk.ServerOptions{PageSize: pageSize})
	for _, t := range ts {
		AddTool(s, t)
	}
	return s
}

// AddTool offers t on s; a connected client hears of it through
// notifications/tools/list_changed.
func AddTool(s *sdk.Server, t *catalogue.Tool) {
	s.AddTool(&sdk.Tool{Name: t.ToolName, Description: t.ToolDescription, InputSchema: t.InputSchema},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok: " + t.ToolName}}}, nil
		})
}
