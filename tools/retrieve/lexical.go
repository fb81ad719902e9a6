package retrieve

import (
	"math"
	"sync"
)

// BM25's usual constants: k1 bounds what repeating a word adds, b how much
// a long text is discounted.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Field weights: a word in a tool's name says more about what the tool is
// for than one in its description or its parameters (BM25F, simplified to
// one weighted bag of words).
const (
	nameWeight   = 3
	descWeight   = 1
	paramsWeight = 1
)

// lexicalIndex is an inverted index scored with BM25. It is built once
// and then only read, so searches need no lock.
type lexicalIndex struct {
	postings map[string][]posting
	n        int
	scratch  sync.Pool // *accumulator, one per concurrent search
}

// posting is one tool that holds a term, with the term's BM25 weight in
// that tool precomputed: what is left at query time is the term's idf.
type posting struct {
	doc    int32
	weight float32
}

func newLexicalIndex(docs []document) *lexicalIndex {
	x := &lexicalIndex{postings: make(map[string][]posting), n: len(docs)}
	tfs := make([]map[string]float64, len(docs))
	lengths := make([]float64, len(docs))
	var total float64
	for i, d := range docs {
		tf := make(map[string]float64)
		for _, f := range []struct {
			text   string
			weight float64
		}{{d.name, nameWeight}, {d.tool.Description(), descWeight}, {d.params, paramsWeight}} {
			for _, t := range terms(f.text) {
				tf[t] += f.weight
				lengths[i] += f.weight
			}
		}
		tfs[i] = tf
		total += lengths[i]
	}
	avg := max(total/float64(max(len(docs), 1)), 1)
	for i, tf := range tfs {
		norm := bm25K1 * (1 - bm25B + bm25B*lengths[i]/avg)
		for t, f := range tf {
			x.postings[t] = append(x.postings[t], posting{doc: int32(i), weight: float32(f * (bm25K1 + 1) / (f + norm))})
		}
	}
	x.scratch.New = func() any { return &accumulator{scores: make([]float32, x.n)} }
	return x
}

// accumulator sums one search's scores. Only the documents it touched
// are reset, so a search costs what its terms' postings cost, not the
// size of the catalogue.
type accumulator struct {
	scores  []float32
	touched []int32
}

// search returns the best k documents for query, at most k, best first;
// documents that share no term with it are not returned.
func (x *lexicalIndex) search(query string, k int) []hit {
	acc := x.scratch.Get().(*accumulator)
	defer x.scratch.Put(acc)
	seen := make(map[string]bool)
	for _, t := range terms(query) {
		ps := x.postings[t]
		if seen[t] || len(ps) == 0 {
			continue
		}
		seen[t] = true
		idf := float32(math.Log(1 + (float64(x.n)-float64(len(ps))+0.5)/(float64(len(ps))+0.5)))
		for _, p := range ps {
			if acc.scores[p.doc] == 0 {
				acc.touched = append(acc.touched, p.doc)
			}
			acc.scores[p.doc] += idf * p.weight
		}
	}
	top := newTopK(k)
	for _, d := range acc.touched {
		top.offer(int(d), float64(acc.scores[d]))
		acc.scores[d] = 0
	}
	acc.touched = acc.touched[:0]
	return top.sorted()
}
