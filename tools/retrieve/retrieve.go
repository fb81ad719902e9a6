// Package retrieve chooses, for each request, the few tools worth showing
// a model out of many: tool retrieval. A small model with a 4–8k context
// cannot read a hundred tool descriptions; it can read the five that
// match the request.
//
// An [Index] holds a set of tools and answers [Index.Select] with the
// top k for a query, with scores. It promises:
//
//   - Offline by default: [Lexical] ranks with BM25 over each tool's name
//     (split at "_", "-" and camelCase), description, and parameters'
//     names and descriptions; it needs no model and no network.
//   - Never failing for want of a model: [Embedding] (cosine similarity
//     of an [Embedder]'s vectors, exact search) and [Hybrid] (reciprocal
//     rank fusion of both) fall back to [Lexical] when the embedder
//     cannot answer, and the [Selection] says so with an [*EmbedError]
//     that names the fix.
//   - Kept tools: the names given as keep (tools already called in the
//     conversation) are always in the selection, so that a follow-up can
//     use them again.
//   - Cheap updates: [Index.Replace] takes the new tool set, such as after
//     an MCP server's list_changed; only tools whose text changed are
//     embedded again, and with a cache directory vectors survive a
//     restart.
//   - Deterministic: the same tools and query give the same ranking;
//     ties go to the tool listed first.
//
// An Index is safe for concurrent use.
package retrieve

import (
	"fmt"
	"slices"
	"sync"

	"github.com/toolscope/toolscope/tools"
)

// Retriever names a way of ranking tools.
type Retriever string

const (
	Lexical   Retriever = "lexical"   // BM25 over the tools' words; offline
	Embedding Retriever = "embedding" // cosine similarity of embeddings
	Hybrid    Retriever = "hybrid"    // reciprocal rank fusion of the two
)

// Retrievers lists the retrievers, the default first.
func Retrievers() []Retriever { return []Retriever{Lexical, Embedding, Hybrid} }

// ParseRetriever reads a retriever's name.
func ParseRetriever(s string) (Retriever, error) {
	r := Retriever(s)
	if !slices.Contains(Retrievers(), r) {
		return "", fmt.Errorf("unknown retriever %q: use lexical, embedding or hybrid", s)
	}
	return r, nil
}

// Options configure an Index. The zero value ranks lexically only.
type Options struct {
	// Embedder serves Embedding and Hybrid; without one they fall back to
	// Lexical.
	Embedder Embedder
	// CacheDir keeps the embeddings on disk, one file per model; "" keeps
	// them in memory only.
	CacheDir string
}

// Index ranks a set of tools for a query. Create it with New.
type Index struct {
	embedder Embedder
	cache    *vectorCache

	mu   sync.RWMutex
	snap *snapshot
}

// snapshot is one tool set and its lexical index; Replace swaps it whole,
// so a search never sees half of an update.
type snapshot struct {
	docs    []document
	byName  map[string]int
	lexical *lexicalIndex

	mu      sync.Mutex
	vectors *vectors // nil until every document has one
}

// New returns an empty Index.
func New(opts Options) *Index {
	x := &Index{embedder: opts.Embedder, snap: newSnapshot(nil, &snapshot{})}
	if x.embedder != nil {
		x.cache = newVectorCache(opts.CacheDir, x.embedder.Model())
	}
	return x
}

// Replace makes ts the index's tools, such as after an MCP server's
// list_changed. It builds the lexical index at once, reusing what it read
// of the tools that did not change, and leaves embedding to the first
// search that needs it, so that a lexical-only program never waits for an
// embedder. Concurrent calls keep the last one to finish.
func (x *Index) Replace(ts []tools.Tool) {
	x.mu.RLock()
	old := x.snap
	x.mu.RUnlock()
	s := newSnapshot(ts, old)
	x.mu.Lock()
	x.snap = s
	x.mu.Unlock()
}

// newSnapshot indexes ts; the documents of old that still describe their
// tool are reused.
func newSnapshot(ts []tools.Tool, old *snapshot) *snapshot {
	s := &snapshot{docs: make([]document, len(ts)), byName: make(map[string]int, len(ts))}
	for i, t := range ts {
		if j, ok := old.byName[t.Name()]; ok && old.docs[j].sameTool(t) {
			s.docs[i] = old.docs[j]
			s.docs[i].tool = t
		} else {
			s.docs[i] = newDocument(t)
		}
		s.byName[t.Name()] = i
	}
	s.lexical = newLexicalIndex(s.docs)
	return s
}

// Len is how many tools the index holds.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.snap.docs)
}
