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
		return strings.SplitAfter(strings.TrimSuffix(s, " "), " ")
	},
}

// BenchmarkStreamedCompletion reads one 1,000-token reply directly from
// the backend, and through toolscope's /v1/chat/completions, side by side.
// "added-ms/token" is how much later each token reaches an API client
// than a direct reader, from the request's start (median and p99 over
// every token); "tokens/s" is the throughput of 100 streams at once.
func BenchmarkStreamedCompletion(b *testing.B) {
	srv := ollamatest.New(b)
	backend, err := ollama.New(ollama.Config{Host: srv.Host(), Model: "qwen3:4b"})
	if err != nil {
		b.Fatal(err)
	}
	url := benchServer(b, srv.Host())
	var direct, api []time.Duration
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			srv.Reply(benchReply)
			direct = readDirect(b, backend)
		}
	})
	b.Run("api", func(b *testing.B) {
		var added []time.Duration
		for b.Loop() {
			srv.Reply(benchReply)
			api = readAPI(b, url)
			for i := range min(len(api), len(direct)) {
				added = append(added, api[i]-direct[i])
			}
		}
		slices.Sort(added)
		b.ReportMetric(ms(added[len(added)/2]), "added-ms/token-p50")
		b.ReportMetric(ms(added[len(added)*99/100]), "added-ms/token-p99")
	})
	b.Run("api-100-streams", func(b *testing.B) {
		const streams = 100
		for b.Loop() {
			began := time.Now()
			var wg sync.WaitGroup
			for range streams {
				srv.Reply(benchReply)
				wg.Go(func() { readAPI(b, url) })
			}
			wg.Wait()
			b.ReportMetric(float64(streams*benchTokens)/time.Since(began).Seconds(), "tokens/s")
		}
	})
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

// readDirect returns when each token arrived, read from the backend.
func readDirect(b *testing.B, backend llm.Backend) []time.Duration {
	began := time.Now()
	in, err := backend.Prepare(b.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}})
	if err != nil {
		b.Fatal(err)
	}
	at := make([]time.Duration, 0, benchTokens)
	_, err = backend.Stream(b.Context(), in, func(c llm.Chunk) error {
		at = append(at, time.Since(began))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return at
}

// readAPI returns when each content token arrived at a streaming client.
func readAPI(b *testing.B, url string) []time.Duration {
	began := time.Now()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model": "qwen3:4b", "stream": true, "tool_choice": "none", "messages": [{"role": "user", "content": "go"}]}`))
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	at := make([]time.Duration, 0, benchTokens)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, `data: {`) && strings.Contains(line, `"content":"word`) {
			at = append(at, time.Since(began))
		}
	}
	if len(at) != benchTokens {
		b.Errorf("%d tokens arrived, want %d (status %d)", len(at), benchTokens, resp.StatusCode)
	}
	return at
}
