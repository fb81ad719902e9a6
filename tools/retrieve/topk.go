package retrieve

import (
	"container/heap"
	"slices"
)

// hit is one ranked document: its position in the index, and its score.
type hit struct {
	doc   int
	score float64
}

// topK keeps the k best hits offered to it, in a min-heap so that a worse
// hit is turned away with one comparison. Ties go to the earlier
// document, so rankings are the same from run to run.
type topK struct {
	k    int
	hits hitHeap
}

func newTopK(k int) *topK { return &topK{k: k, hits: make(hitHeap, 0, k)} }

func (t *topK) offer(doc int, score float64) {
	if t.k <= 0 {
		return
	}
	h := hit{doc, score}
	if len(t.hits) < t.k {
		heap.Push(&t.hits, h)
		return
	}
	if worse(t.hits[0], h) {
		t.hits[0] = h
		heap.Fix(&t.hits, 0)
	}
}

// sorted returns the hits kept, best first.
func (t *topK) sorted() []hit {
	out := slices.Clone(t.hits)
	slices.SortFunc(out, func(a, b hit) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return out
}

// worse says whether a ranks below b.
func worse(a, b hit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.doc > b.doc
}

type hitHeap []hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
