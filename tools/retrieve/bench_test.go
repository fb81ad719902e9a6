package retrieve_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/catalogue"
	"github.com/toolscope/toolscope/tools/retrieve"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
)

// scaled repeats the catalogue to n tools, each copy's names made unique
// as a second server's would be: real text, at the size asked for.
func scaled(b *testing.B, n int) []tools.Tool {
	ts, _ := labelledCatalogue(b)
	out := make([]tools.Tool, n)
	for i := range out {
		t := ts[i%len(ts)]
		if copyN := i / len(ts); copyN > 0 {
			t = &catalogue.Tool{ToolName: fmt.Sprintf("%s_%d", t.ToolName, copyN), ToolDescription: t.ToolDescription, InputSchema: t.InputSchema}
		}
		out[i] = t
	}
	return out
}

var sizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}}

// BenchmarkSelect is one request over 1k, 10k and 100k tools, k = 5, the
// requests taken in turn from the labelled set. Embedding searches
// vectors made beforehand (as the cache gives them after a restart) and
// times embedding the request too, with the stand-in embedder.
func BenchmarkSelect(b *testing.B) {
	_, rs := labelledCatalogue(b)
	for _, r := range []retrieve.Retriever{retrieve.Lexical, retrieve.Embedding, retrieve.Hybrid} {
		for _, size := range sizes {
			b.Run(fmt.Sprintf("%s/%s", r, size.name), func(b *testing.B) {
				x := retrieve.New(retrieve.Options{Embedder: retrievetest.StandIn{}})
				x.Replace(scaled(b, size.n))
				if sel := x.Select(context.Background(), r, "warm up", 5, nil); sel.Fallback != nil {
					b.Fatal(sel.Fallback)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					x.Select(context.Background(), r, rs[i%len(rs)].Query, 5, nil)
					i++
				}
			})
		}
	}
}

// BenchmarkBuild builds the lexical index of 10k tools, and reports the
// heap the finished index holds (bytes/index): the lexical index, and
// with -embedded the vectors too.
func BenchmarkBuild(b *testing.B) {
	ts := scaled(b, 10_000)
	b.Run("lexical/10k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			retrieve.New(retrieve.Options{}).Replace(ts)
		}
		b.ReportMetric(float64(heapOf(func() any {
			x := retrieve.New(retrieve.Options{})
			x.Replace(ts)
			return x
		})), "bytes/index")
	})
	b.Run("lexical-list-changed/10k", func(b *testing.B) {
		// One tool of 10k changed, as after a list_changed.
		x := retrieve.New(retrieve.Options{})
		x.Replace(ts)
		changed := append(ts[1:len(ts):len(ts)], &catalogue.Tool{ToolName: "new_tool", ToolDescription: "New.", InputSchema: []byte(`{"type":"object"}`)})
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				x.Replace(changed)
			} else {
				x.Replace(ts)
			}
		}
	})
	b.Run("embedding-vectors/10k", func(b *testing.B) {
		// Embedding with the stand-in costs nothing like a real model;
		// what this measures is the index around the vectors.
		b.ReportAllocs()
		for b.Loop() {
			x := retrieve.New(retrieve.Options{Embedder: retrievetest.StandIn{}})
			x.Replace(ts)
			x.Select(context.Background(), retrieve.Embedding, "warm up", 5, nil)
		}
		b.ReportMetric(float64(heapOf(func() any {
			x := retrieve.New(retrieve.Options{Embedder: retrievetest.StandIn{}})
			x.Replace(ts)
			x.Select(context.Background(), retrieve.Embedding, "warm up", 5, nil)
			return x
		})), "bytes/index")
	})
}

// heapOf is how much live heap what build returns holds.
func heapOf(build func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return after.HeapAlloc - before.HeapAlloc
}
