// Command load measures what toolscope's server holds under many live
// runs: it serves in-process on loopback with the demo model, has a child
// process start -runs runs with one SSE viewer each, and reports the runs
// held at once, the server's memory per live run (heap and RSS, the child's
// excluded), memory once the load is over, and how long events took to
// reach their viewers.
//
//	go run ./cmd/load -runs 500
//
// It is bounded (-runs at most 2000, one run per viewer, a deadline) and
// never leaves loopback.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
)

// childEnv carries the server's address to the child that plays the
// viewers.
const childEnv = "TOOLSCOPE_LOAD_SERVER"

const maxRuns = 2000

var heapProfile string

func main() {
	n := flag.Int("runs", 100, fmt.Sprintf("live runs, each with one viewer (at most %d)", maxRuns))
	pace := flag.Duration("pace", engine.Defaults().DemoDelay, "the demo model's pause between tokens")
	toolDelay := flag.Duration("tool-delay", engine.Defaults().ToolDelay, "how long each stub tool takes")
	keep := flag.Int("keep", 100, "finished runs kept, as serve's --keep-runs")
	message := flag.String("message", "Send an email to john@example.com about tomorrow's standup", "each run's request")
	flag.StringVar(&heapProfile, "heapprofile", "", "write the server's heap profile at the peak to this file")
	flag.Parse()
	if heapProfile != "" {
		runtime.MemProfileRate = 4096
	}
	if *n < 1 || *n > maxRuns {
		fmt.Fprintf(os.Stderr, "load: -runs must be from 1 to %d\n", maxRuns)
		os.Exit(2)
	}
	if addr := os.Getenv(childEnv); addr != "" {
		view(addr, *n, *message)
		return
	}
	if err := run(*n, *keep, *pace, *toolDelay, *message); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// run serves, lets the child load the server, and reports.
func run(n, keep int, pace, toolDelay time.Duration, message string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e, err := engine.Start(ctx, engine.Settings{Backend: engine.BackendDemo, DemoDelay: pace, ToolDelay: toolDelay}, nil)
	if err != nil {
		return err
	}
	defer e.Close()
	hub := runs.NewHub(keep, runs.Limits{MaxLive: n})
	srv := server.New(server.Config{Hub: hub, Engine: e, MaxConns: 2*n + 16})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())

	idle := measure()
	watch := startWatch(hub, n)
	child := exec.CommandContext(ctx, os.Args[0], os.Args[1:]...)
	child.Env = append(os.Environ(), childEnv+"="+ln.Addr().String())
	child.Stderr = os.Stderr
	out, err := child.Output()
	if err != nil {
		return fmt.Errorf("the viewers failed: %v", err)
	}
	var lat latencies
	if err := json.Unmarshal(out, &lat); err != nil {
		return err
	}
	peak := watch.stop()
	for hub.Live() > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(5 * time.Second) // as a room would be idle after a class
	after := measure()
	if heapProfile != "" {
		heapProfile += ".after"
		profileHeap()
	}
	debug.FreeOSMemory()
	freed := measure()
	report(n, keep, pace, idle, peak, after, freed, lat)
	return nil
}

func report(n, keep int, pace time.Duration, idle memory, peak peakWatch, after, freed memory, lat latencies) {
	perRun := func(a, b uint64) float64 { return float64(int64(a)-int64(b)) / float64(peak.live) / 1024 }
	fmt.Printf("runs: %d started, %d live at once, %d viewers, %d events delivered (pace %v)\n", n, peak.live, lat.Viewers, lat.Events, pace)
	fmt.Printf("memory per live run: live heap %.0f KiB, heap with garbage %.0f KiB, RSS %.0f KiB\n",
		perRun(peak.liveHeap, idle.live), perRun(peak.heap, idle.heap), perRun(peak.rss, idle.rss))
	fmt.Printf("  (idle: live heap %.1f MiB, heap %.1f MiB, RSS %.1f MiB; at the peak: live heap %.1f MiB, heap %.1f MiB, RSS %.1f MiB)\n",
		mib(idle.live), mib(idle.heap), mib(idle.rss), mib(peak.liveHeap), mib(peak.heap), mib(peak.rss))
	fmt.Printf("after the load, 5 s idle: live heap %.1f MiB (%d finished runs kept), heap %.1f MiB, RSS %.1f MiB; after debug.FreeOSMemory: RSS %.1f MiB\n",
		mib(after.live), keep, mib(after.heap), mib(after.rss), mib(freed.rss))
	fmt.Printf("event delivery latency: median %.1f ms, p99 %.1f ms, max %.1f ms\n", lat.Median, lat.P99, lat.Max)
}

// memory is the server process's: its heap in use and the part of it
// that is reachable, and its resident set.
type memory struct{ heap, live, rss uint64 }

func measure() memory {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memory{heap: m.HeapInuse, live: liveHeap(), rss: rss()}
}

// rss reads the resident set size from /proc; 0 where there is none.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident uint64
	fmt.Sscan(string(b), &size, &resident)
	return resident * uint64(os.Getpagesize())
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
