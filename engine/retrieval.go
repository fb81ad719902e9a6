package engine

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// toolIndex is the engine's tool retrieval: one index of every tool the
// engine offers, kept in step with the MCP servers.
type toolIndex struct {
	index *retrieve.Index

	mu    sync.Mutex // one refresh at a time, so the last one reads the newest tools
	names []string   // the indexed tools' names, for the left-out list
}

// newToolIndex returns an index whose embedder is the Ollama of s and whose
// vectors are cached in the user's cache directory (none when it has
// none). Nothing is embedded until a search needs it.
func newToolIndex(s Settings) *toolIndex {
	return &toolIndex{index: retrieve.New(retrieve.Options{Embedder: embedderOf(s), CacheDir: EmbeddingsDir()})}
}

// EmbeddingsDir is where tool embeddings are cached,
// $XDG_CACHE_HOME/toolscope/embeddings or its platform's like; "" when the
// platform has no cache directory.
func EmbeddingsDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "toolscope", "embeddings")
}

// embedderOf is the Ollama at s.OllamaHost embedding with s.EmbedModel;
// nil when the address cannot be read, and then the index ranks lexically
// and says that no embedder is configured.
func embedderOf(s Settings) retrieve.Embedder {
	b, err := ollama.New(ollama.Config{Host: s.OllamaHost, Model: s.Model})
	if err != nil {
		return nil
	}
	base, err := url.Parse(b.BaseURL())
	if err != nil {
		return nil
	}
	return retrieve.NewOllama(base, s.EmbedModel, nil)
}

// follow indexes the engine's tools now and again whenever an MCP server's
// tools change: one connects late, fails, or sends list_changed.
func (e *Engine) follow() {
	e.refreshIndex()
	if e.hub != nil {
		e.hub.OnToolsChanged(e.refreshIndex)
	}
}

func (e *Engine) refreshIndex() {
	x := e.index
	x.mu.Lock()
	defer x.mu.Unlock()
	ts := e.Tools()
	x.names = x.names[:0:0]
	for _, t := range ts {
		x.names = append(x.names, t.Name())
	}
	x.index.Replace(ts)
}

// Offer is what a run of the engine's own settings would be offered for
// query, as its first request, by the very selector the run uses: for
// tuning descriptions without a model. nil means every tool, as when
// ToolsTopK is 0 (see selector.Select). Like a run's, the ranking falls
// back to lexical, saying why in the Selection, when the embedder fails.
func (e *Engine) Offer(ctx context.Context, query string) *agent.Selection {
	return e.selectorFor(e.asked).Select(ctx, query, nil)
}

// selector is the agent.Selector of one run's settings.
type selector struct {
	x         *toolIndex
	k         int
	retriever retrieve.Retriever
}

func (e *Engine) selectorFor(s Settings) selector {
	return selector{x: e.index, k: s.ToolsTopK, retriever: s.Retriever}
}

// Select offers the k best tools for query, plus keep; nil, offering every
// tool, when k is 0, or when it is ToolsTopKAuto and no more than
// AutoRetrievalAbove tools are connected.
func (s selector) Select(ctx context.Context, query string, keep []string) *agent.Selection {
	s.x.mu.Lock()
	names := s.x.names
	s.x.mu.Unlock()
	k := s.k
	if k == ToolsTopKAuto && len(names) > AutoRetrievalAbove {
		k = AutoTopK
	}
	if k <= 0 {
		return nil
	}
	sel := &agent.Selection{Selection: s.x.index.Select(ctx, s.retriever, query, k, keep)}
	sel.LeftOutNames = leftOut(names, sel.Names())
	return sel
}

// leftOut lists the names not offered, in the tools' order, at most
// agent.MaxLeftOutNames of them.
func leftOut(all, offered []string) []string {
	chosen := make(map[string]bool, len(offered))
	for _, n := range offered {
		chosen[n] = true
	}
	var out []string
	for _, n := range all {
		if len(out) == agent.MaxLeftOutNames {
			break
		}
		if !chosen[n] {
			out = append(out, n)
		}
	}
	return out
}
