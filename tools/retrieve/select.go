package retrieve

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"slices"

	"github.com/toolscope/toolscope/tools"
)

// Choice is one tool a Selection offers.
type Choice struct {
	Tool tools.Tool `json:"-"`
	Name string     `json:"name"`
	// Score ranks the tool: BM25 for Lexical, cosine similarity for
	// Embedding, the fused reciprocal ranks for Hybrid. A kept tool that
	// did not rank in the top k scores 0.
	Score float64 `json:"score"`
	// Kept says the tool is offered because the caller asked to keep it,
	// not for its rank.
	Kept bool `json:"kept,omitempty"`
}

// Selection is the answer to one Select: which tools to offer, and why.
type Selection struct {
	Query string `json:"query"`
	// Asked is the retriever the caller asked for; Retriever is the one
	// that ranked, Lexical after a fallback, which Fallback explains.
	Asked     Retriever   `json:"asked"`
	Retriever Retriever   `json:"retriever"`
	Fallback  *EmbedError `json:"fallback,omitempty"`
	K         int         `json:"k"`
	// Tools are the ranked tools, best first, then the kept ones that did
	// not rank. Lexical offers fewer than k when fewer tools share a word
	// with the query.
	Tools []Choice `json:"tools"`
	// LeftOut is how many of the index's tools are not offered.
	LeftOut int `json:"left_out"`
}

// Names are the names of the tools offered, in order.
func (s Selection) Names() []string {
	names := make([]string, len(s.Tools))
	for i, c := range s.Tools {
		names[i] = c.Name
	}
	return names
}

// rrfK is reciprocal rank fusion's constant, the one its authors found
// best: a tool ranked r-th by one retriever adds 1/(rrfK + r).
const rrfK = 60

// fuseDepth is how deep Hybrid reads each ranking: fusion can lift a tool
// that one retriever ranks well below k.
const fuseDepth = 50

// Select ranks the index's tools for query with r and offers the best k,
// plus every tool named in keep that the index holds (tools already
// called in the conversation). k of 0 or less offers every tool, ranked.
// When r needs the embedder and it fails, Select ranks lexically and says
// why in Selection.Fallback; it never fails.
func (x *Index) Select(ctx context.Context, r Retriever, query string, k int, keep []string) Selection {
	x.mu.RLock()
	s := x.snap
	x.mu.RUnlock()
	if k <= 0 || k > len(s.docs) {
		k = len(s.docs)
	}
	if r == "" {
		r = Lexical
	}
	sel := Selection{Query: query, Asked: r, Retriever: r, K: k}
	hits, err := x.rank(ctx, s, r, query, k)
	if err != nil {
		sel.Retriever, sel.Fallback = Lexical, asEmbedError(x.model(), err)
		hits = s.lexical.search(query, k)
	}
	offered := make(map[int]bool, len(hits)+len(keep))
	for _, h := range hits {
		offered[h.doc] = true
		sel.Tools = append(sel.Tools, Choice{Tool: s.docs[h.doc].tool, Name: s.docs[h.doc].tool.Name(), Score: h.score})
	}
	for _, name := range keep {
		if i, ok := s.byName[name]; ok && !offered[i] {
			offered[i] = true
			sel.Tools = append(sel.Tools, Choice{Tool: s.docs[i].tool, Name: name, Kept: true})
		}
	}
	sel.LeftOut = len(s.docs) - len(sel.Tools)
	return sel
}

func (x *Index) model() string {
	if x.embedder == nil {
		return ""
	}
	return x.embedder.Model()
}

// rank returns the best k documents of s for query by r.
func (x *Index) rank(ctx context.Context, s *snapshot, r Retriever, query string, k int) ([]hit, error) {
	switch r {
	case Embedding:
		return x.nearest(ctx, s, query, k)
	case Hybrid:
		depth := max(k, fuseDepth)
		semantic, err := x.nearest(ctx, s, query, depth)
		if err != nil {
			return nil, err
		}
		return fuse(k, s.lexical.search(query, depth), semantic), nil
	}
	return s.lexical.search(query, k), nil
}

// fuse ranks by reciprocal rank fusion: what counts is where each ranking
// puts a tool, not its score, which BM25 and cosine give on unlike
// scales.
func fuse(k int, rankings ...[]hit) []hit {
	scores := make(map[int]float64)
	var order []int // first seen first, for ties
	for _, ranking := range rankings {
		for rank, h := range ranking {
			if _, ok := scores[h.doc]; !ok {
				order = append(order, h.doc)
			}
			scores[h.doc] += 1 / float64(rrfK+rank+1)
		}
	}
	slices.Sort(order)
	top := newTopK(k)
	for _, doc := range order {
		top.offer(doc, scores[doc])
	}
	return top.sorted()
}

// nearest returns the k documents of s nearest to query's embedding.
func (x *Index) nearest(ctx context.Context, s *snapshot, query string, k int) ([]hit, error) {
	if x.embedder == nil {
		return nil, &EmbedError{Problem: "no embedder is configured"}
	}
	vecs, err := x.vectorsOf(ctx, s)
	if err != nil {
		return nil, err
	}
	q, err := x.embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(q) != 1 {
		return nil, &EmbedError{Model: x.model(), Problem: "the embedder returned no vector for the request"}
	}
	return vecs.search(normalize(q[0]), k), nil
}

// embedBatch is how many texts go to the embedder at once: large enough
// that 10,000 tools take a few hundred requests, small enough that one
// request stays well under an HTTP server's body limit.
const embedBatch = 64

// vectorsOf returns the vectors of s's documents, embedding those the
// cache lacks. Concurrent searches of one snapshot wait for one another
// here rather than embed the same texts twice.
func (x *Index) vectorsOf(ctx context.Context, s *snapshot) (*vectors, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vectors != nil {
		return s.vectors, nil
	}
	var missing []int
	for i, d := range s.docs {
		if _, ok := x.cache.get(d.hash); !ok {
			missing = append(missing, i)
		}
	}
	for batch := range slices.Chunk(missing, embedBatch) {
		texts := make([]string, len(batch))
		hashes := make([][sha256.Size]byte, len(batch))
		for j, i := range batch {
			texts[j], hashes[j] = s.docs[i].text, s.docs[i].hash
		}
		vecs, err := x.embedder.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(texts) {
			return nil, &EmbedError{Model: x.model(), Problem: "the embedder returned fewer vectors than texts"}
		}
		for _, v := range vecs {
			normalize(v)
		}
		if err := x.cache.put(hashes, vecs); err != nil {
			slog.Warn("tool embeddings not saved; they will be made again at the next start", "error", err)
		}
	}
	v := &vectors{}
	for _, d := range s.docs {
		vec, _ := x.cache.get(d.hash)
		if v.dim != 0 && len(vec) != v.dim {
			return nil, &EmbedError{Model: x.model(), Problem: "the embedder returned vectors of different lengths"}
		}
		v.add(vec)
	}
	s.vectors = v
	return v, nil
}
