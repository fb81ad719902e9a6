package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// childEnv marks the re-executed test binary that serves with few file
// descriptors.
const childEnv = "TOOLSCOPE_TEST_FEW_FILES"

// TestOutOfFilesKeepsServing opens more idle connections than a server
// with 64 file descriptors can accept: it must wait for descriptors
// instead of exiting, and answer once they are free.
func TestOutOfFilesKeepsServing(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		serveWithFewFiles(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutOfFilesKeepsServing$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stdin.Close(); <-exited })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the child did not start serving: %v", err)
	}
	addr := strings.TrimSpace(line)

	var conns []net.Conn
	for range 100 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// One request rides behind the idle connections: it is answered only
	// once the server accepts again.
	answered := make(chan error, 1)
	go func() {
		client := &http.Client{Timeout: time.Minute}
		resp, err := client.Get("http://" + addr + "/api/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
		}
		answered <- err
	}()
	time.Sleep(100 * time.Millisecond) // not needed to pass: lets the child hit the limit first
	for _, c := range conns {
		c.Close()
	}
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("the server did not answer after the connections closed: %v", err)
		}
	case err := <-exited:
		t.Fatalf("the server exited: %v", err)
	}
}

// serveWithFewFiles is the child of TestOutOfFilesKeepsServing: it serves
// under RLIMIT_NOFILE 64, prints its address, and exits 1 if Serve ends.
func serveWithFewFiles(t *testing.T) {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Skipf("cannot lower the open-file limit: %v", err)
	}
	e, err := engine.Start(context.Background(), engine.Settings{Backend: engine.BackendDemo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Config{Hub: runs.NewHub(10), Engine: e})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		err := srv.Serve(ln)
		fmt.Fprintln(os.Stderr, "Serve ended:", err)
		os.Exit(1)
	}()
	fmt.Println(ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent is done
}

func TestConnectionsPastTheCapAreRefused(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) { c.MaxConns = 2 }})
	addr := strings.TrimPrefix(ts.url, "http://")
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /api/health HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Error string }
	if resp.StatusCode != http.StatusServiceUnavailable || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Error == "" {
		t.Fatalf("third connection: %d %+v, want 503 with a JSON error", resp.StatusCode, body)
	}
}

// closedByServer reports whether the server closes c without the client
// finishing its request; the deadline only bounds a failure.
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func TestUnfinishedRequestsAreDropped(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) {
		c.ReadTimeout, c.IdleTimeout = 100*time.Millisecond, 100*time.Millisecond
	}})
	addr := strings.TrimPrefix(ts.url, "http://")
	for name, sent := range map[string]string{
		"slowloris": "GET / HTTP/1.1\r\nHost: " + addr + "\r\nX-Slow: 1\r\n",
		"HTTP/0.9":  "GET /\r\n",
		"idle":      "",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, _ = io.WriteString(c, sent)
			if !closedByServer(t, c) {
				t.Fatal("the server kept the connection open")
			}
		})
	}
}

// A viewer that never reads must not hold a run's stream forever: the
// write that its full socket blocks fails at the write timeout.
func TestViewerThatNeverReadsIsDropped(t *testing.T) {
	model := ollamatest.New(t)
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{
		settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: model.Host()},
		tools:    []tools.Tool{g.Tool()},
		config:   func(c *server.Config) { c.WriteTimeout = 500 * time.Millisecond },
	})
	// Megabytes of events, far past any socket buffer, then a held tool.
	call := `<tool_call>{"name": "send_mail", "arguments": {}}</tool_call>`
	model.Reply(ollamatest.Reply{
		Text: strings.Repeat("y", 2<<20) + call,
		Split: func(s string) []string {
			if body, ok := strings.CutSuffix(s, call); ok {
				return []string{body, call}
			}
			return []string{s}
		},
	})
	id, _ := ts.startRun(t, `{"message": "Send an email"}`)
	<-g.Started
	defer g.Release()
	run, _ := ts.hub.Get(id)

	addr := strings.TrimPrefix(ts.url, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(c, "GET /api/runs/%s/events HTTP/1.1\r\nHost: %s\r\n\r\n", id, addr)
	waitForViewers(t, run, 1)
	waitForViewers(t, run, 0)
}

// The write timeout bounds each write of an event stream, not the stream:
// a viewer that keeps reading follows a run for longer than it.
func TestStreamOutlivesTheWriteTimeout(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}, heartbeat: 5 * time.Millisecond, config: func(c *server.Config) {
		// Long beside the heartbeat, so that a loaded machine's pauses
		// between a frame's deadline and its write do not cut the stream.
		c.WriteTimeout = 500 * time.Millisecond
	}})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	resp, body := openStream(t, ts, id, 0)
	defer resp.Body.Close()
	beats := 0
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %d heartbeats, before the run: %v", beats, err)
		}
		// 150 heartbeats, 5 ms apart at the least, outlast the timeout.
		if line == ": heartbeat\n" {
			if beats++; beats == 150 {
				g.Release()
			}
		}
		if line == "event: run_finished\n" {
			return
		}
	}
}
