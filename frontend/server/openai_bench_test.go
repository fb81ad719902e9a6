package server_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/runs"
)

// benchTokens is the length of a benchmark's reply, one piece per token.
const benchTokens = 1000

// benchReply is a reply of benchTokens tokens, sent as fast as the test
// Ollama can: the backend costs as little as an HTTP backend can.
var benchReply = ollamatest.Reply{
	Text: strings.Repeat("word ", benchTokens),
	Split: func(s string) []string {
		if s == "" {
			return nil // no thinking: not even an empty piece
		}
		return strings.SplitAfter(strings.TrimSuffix(s, " "), " ")
	},
}

// BenchmarkStreamedCompletion reads one 1,000-token reply, sent as fast as
// the test Ollama can, directly from the backend and through toolscope's
// /v1/chat/completions, side by side: ns/op is the whole reply.
// "tokens/s" is the throughput of 100 streams at once.
func BenchmarkStreamedCompletion(b *testing.B) {
	srv := ollamatest.New(b)
	backend, err := ollama.New(ollama.Config{Host: srv.Host(), Model: "qwen3:4b"})
	if err != nil {
		b.Fatal(err)
	}
	url := benchServer(b, srv.Host())
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			srv.Reply(benchReply)
			readDirect(b, backend, benchTokens)
		}
	})
	b.Run("api", func(b *testing.B) {
		for b.Loop() {
			srv.Reply(benchReply)
			readAPI(b, url, benchTokens)
		}
	})
	b.Run("api-100-streams", func(b *testing.B) {
		const streams = 100
		for b.Loop() {
			began := time.Now()
			var wg sync.WaitGroup
			for range streams {
				srv.Reply(benchReply)
				wg.Go(func() { readAPI(b, url, benchTokens) })
			}
			wg.Wait()
			b.ReportMetric(float64(streams*benchTokens)/time.Since(began).Seconds(), "tokens/s")
		}
	})
}

// pacedTokens is the length of a paced reply: enough tokens for a p99.
const pacedTokens = 200

// BenchmarkTokenLatency times each token from the moment the test Ollama
// sends it to the moment a reader has it, directly from the backend and
// through /v1/chat/completions, side by side. Tokens come 1 ms apart, as
// from a fast model, so that they do not queue behind each other: what
// is left is what each path adds to every token. The percentiles are over
// every token of every iteration.
func BenchmarkTokenLatency(b *testing.B) {
	srv := ollamatest.New(b)
	backend, err := ollama.New(ollama.Config{Host: srv.Host(), Model: "qwen3:4b"})
	if err != nil {
		b.Fatal(err)
	}
	url := benchServer(b, srv.Host())
	for _, path := range []struct {
		name string
		read func(*testing.B) []time.Time
	}{
		{"direct", func(b *testing.B) []time.Time { return readDirect(b, backend, pacedTokens) }},
		{"api", func(b *testing.B) []time.Time { return readAPI(b, url, pacedTokens) }},
	} {
		b.Run(path.name, func(b *testing.B) {
			var latencies []time.Duration
			for b.Loop() {
				var mu sync.Mutex // Sent runs on the server's goroutine
				sent := make([]time.Time, pacedTokens)
				reply := pacedReply
				reply.Sent = func(i int) {
					mu.Lock()
					defer mu.Unlock()
					sent[i] = time.Now()
				}
				srv.Reply(reply)
				arrived := path.read(b)
				mu.Lock()
				for i := range min(len(arrived), len(sent)) {
					latencies = append(latencies, arrived[i].Sub(sent[i]))
				}
				mu.Unlock()
			}
			slices.Sort(latencies)
			b.ReportMetric(ms(latencies[len(latencies)/2]), "latency-ms-p50")
			b.ReportMetric(ms(latencies[len(latencies)*99/100]), "latency-ms-p99")
		})
	}
}

// pacedReply is pacedTokens tokens, 1 ms apart.
var pacedReply = ollamatest.Reply{
	Text:  strings.Repeat("word ", pacedTokens),
	Split: benchReply.Split,
	Pace:  time.Millisecond,
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchServer serves the API on the test Ollama, with room for 100 runs.
func benchServer(b *testing.B, host string) string {
	e, err := engine.Start(b.Context(), engine.Settings{Backend: engine.BackendOllama, OllamaHost: host}, nil)
	if err != nil {
		b.Fatal(err)
	}
	srv := server.New(server.Config{Hub: runs.NewHub(10, runs.Limits{MaxLive: 200}), Engine: e, MaxConns: 1000})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(ln)
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		e.Close()
	})
	return "http://" + ln.Addr().String()
}

// readDirect returns when each of n tokens arrived, read from the backend.
func readDirect(b *testing.B, backend llm.Backend, n int) []time.Time {
	in, err := backend.Prepare(b.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}})
	if err != nil {
		b.Fatal(err)
	}
	at := make([]time.Time, 0, n)
	_, err = backend.Stream(b.Context(), in, func(c llm.Chunk) error {
		at = append(at, time.Now())
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(at) != n {
		b.Errorf("%d tokens arrived, want %d", len(at), n)
	}
	return at
}

// readAPI returns when each of n content tokens ("word") arrived at a
// streaming client.
func readAPI(b *testing.B, url string, n int) []time.Time {
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model": "qwen3:4b", "stream": true, "tool_choice": "none", "messages": [{"role": "user", "content": "go"}]}`))
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	at := make([]time.Time, 0, n)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		// A chunk may carry several tokens that arrived together.
		if _, content, ok := strings.Cut(sc.Text(), `"content":"`); ok {
			now := time.Now()
			for range strings.Count(content, "word") {
				at = append(at, now)
			}
		}
	}
	if len(at) != n {
		b.Errorf("%d tokens arrived, want %d (status %d)", len(at), n, resp.StatusCode)
	}
	return at
}
