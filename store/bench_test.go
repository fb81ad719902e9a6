package store_test

import (
	"testing"

	"github.com/toolscope/toolscope/internal/streambench"
	"github.com/toolscope/toolscope/llm/demo"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
)

// BenchmarkDelivery is streambench's delivery of a run to one viewer, with
// the history off and on: events/s is the viewer's throughput, p99-µs the
// 99th percentile of the time from a token leaving the model to the
// viewer getting its event.
func BenchmarkDelivery(b *testing.B) {
	for _, c := range []struct {
		name    string
		paced   bool
		history string
	}{{"flat-out", false, "off"}, {"flat-out", false, "on"}, {"paced", true, "off"}, {"paced", true, "on"}} {
		history := c.history
		b.Run(c.name+"/history="+history, func(b *testing.B) {
			h := runs.NewHub(4)
			defer h.Close()
			if history == "on" {
				s := open(b, b.TempDir(), store.Options{})
				defer s.Close()
				h.SetArchive(s)
			}
			streambench.Delivery(b, h, demo.New(demo.Config{}), c.paced)
		})
	}
}
