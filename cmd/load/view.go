package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// peakWatch samples the server while the load runs: the most runs live at
// once, and the heap and RSS at that moment.
type peakWatch struct {
	live      int
	heap, rss uint64 // the heap in use, garbage included, and the RSS
	liveHeap  uint64 // the heap reachable just after a collection
	done      chan struct{}
	ended     chan peakWatch
}

func startWatch(hub *runs.Hub, n int) *peakWatch {
	w := &peakWatch{done: make(chan struct{}), ended: make(chan peakWatch, 1)}
	go func() {
		var peak peakWatch
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for tick := 0; ; tick++ {
			select {
			case <-w.done:
				w.ended <- peak
				return
			case <-t.C:
			}
			live := hub.Live()
			if live == n && tick%20 == 0 {
				peak.liveHeap = max(peak.liveHeap, atFullLoad())
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if live > peak.live || live == peak.live && m.HeapInuse > peak.heap {
				peak.live, peak.heap, peak.rss = live, m.HeapInuse, rss()
				profileHeap()
			}
		}
	}()
	return w
}

// stop ends the sampling.
func (w *peakWatch) stop() peakWatch {
	close(w.done)
	return <-w.ended
}

// atFullLoad measures the heap without garbage, while every run is live.
func atFullLoad() uint64 {
	runtime.GC()
	return liveHeap()
}

// liveHeap is the heap the last collection found reachable: unlike
// MemStats.HeapInuse, it leaves out the free room in the heap's spans.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// latencies are what the child reports, in milliseconds.
type latencies struct {
	Viewers, Events  int
	Median, P99, Max float64
}

// view is the child: it starts n runs at addr, follows each with one
// viewer, and prints the delivery latencies as JSON.
func view(addr string, n int, message string) {
	var mu sync.Mutex
	var all []float64
	var wg sync.WaitGroup
	viewers := 0
	for range n {
		id, posted, err := startRun(addr, message)
		if err != nil {
			fmt.Fprintln(os.Stderr, "load: starting a run:", err)
			os.Exit(1)
		}
		viewers++
		wg.Go(func() {
			got, err := follow(addr, id, posted)
			if err != nil {
				fmt.Fprintln(os.Stderr, "load: viewing a run:", err)
			}
			mu.Lock()
			all = append(all, got...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(all)
	lat := latencies{Viewers: viewers, Events: len(all)}
	if len(all) > 0 {
		lat.Median, lat.P99, lat.Max = all[len(all)/2], all[len(all)*99/100], all[len(all)-1]
	}
	_ = json.NewEncoder(os.Stdout).Encode(lat)
}

func startRun(addr, message string) (id string, posted time.Time, err error) {
	body, _ := json.Marshal(map[string]string{"message": message})
	posted = time.Now()
	resp, err := http.Post("http://"+addr+"/api/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", posted, err
	}
	defer resp.Body.Close()
	var v struct{ ID, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.ID == "" {
		return "", posted, fmt.Errorf("%s: %v %s", resp.Status, err, v.Error)
	}
	return v.ID, posted, nil
}

// follow reads a run's stream to its end. An event's latency is from when
// the run made it, posted+at_ms (an upper bound: the run starts after the
// POST is sent), to when it arrived; events replayed from before the
// stream opened are left out.
func follow(addr, id string, posted time.Time) ([]float64, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /api/runs/%s/events HTTP/1.1\r\nHost: %s\r\n\r\n", id, addr)
	opened := time.Since(posted)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []float64
	lines := bufio.NewReader(resp.Body)
	for {
		line, err := lines.ReadString('\n')
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var e agent.Event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			return out, err
		}
		made := time.Duration(e.AtMS) * time.Millisecond
		if made > opened {
			out = append(out, float64(time.Since(posted)-made)/float64(time.Millisecond))
		}
		if e.Type == agent.RunFinished {
			return out, nil
		}
	}
}

// profileHeap writes the heap profile asked for with -heapprofile.
func profileHeap() {
	if heapProfile == "" {
		return
	}
	f, err := os.Create(heapProfile)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}
