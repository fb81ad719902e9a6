package server_test

import (
	"bufio"
	"bytes"
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
	// Connections that made a request are trusted: a new one cannot
	// displace them.
	for range 2 {
		c := dialFrom(t, "127.0.0.1", addr)
		if resp := c.get(t, "/api/health", ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/health = %d", resp.StatusCode)
		}
	}
	c := dialFrom(t, "127.0.0.1", addr)
	resp := c.get(t, "/api/health", "")
	var body struct{ Error string }
	if resp.StatusCode != http.StatusServiceUnavailable || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Error == "" {
		t.Fatalf("third connection: %d %+v, want 503 with a JSON error", resp.StatusCode, body)
	}
}

// TestStrangersCannotLockTheRoomOut floods a server that asks for tokens
// as an attacker on the room's network would: as many connections as it
// has slots, each making a request without a token, then idle connections
// from several addresses (127.0.0.2 and up are loopback too, so each is a
// client of its own). The operator and a viewer must still be served.
func TestStrangersCannotLockTheRoomOut(t *testing.T) {
	const maxConns, perAddr, floodAddrs = 40, 8, 5
	const maxStrangers = maxConns / 2 // the default share
	ts := start(t, setup{config: func(c *server.Config) {
		c.Access = server.Access{Tokens: tokens}
		c.MaxConns = maxConns
		c.Strangers = server.StrangerLimits{
			PerAddr: perAddr,
			Idle:    time.Hour,       // the flood holds what it is given for the whole test
			Grace:   time.Nanosecond, // and any of it may be displaced at once
		}
	}})
	addr := strings.TrimPrefix(ts.url, "http://")

	// Refused requests do not hold their connections.
	for range maxConns {
		c := dialFrom(t, "127.0.0.2", addr)
		resp := c.get(t, "/api/health", "")
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Fatalf("a request without a token: %d, Connection: close %v; want 401 and close", resp.StatusCode, resp.Close)
		}
		if !closedByServer(t, c) {
			t.Fatal("the server kept a connection open after its 401")
		}
	}

	// Idle strangers: more from each address than it may hold, and more
	// in all than the strangers' share, and than the server's slots.
	var flood []*rawConn
	for i := range floodAddrs {
		for range perAddr + 2 {
			flood = append(flood, dialFrom(t, fmt.Sprintf("127.0.0.%d", 3+i), addr))
		}
	}
	operator, viewer := dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)
	if resp := operator.get(t, "/api/health", tokens.Operator); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("the operator during the flood: %d, Connection: close %v; want 200, kept alive", resp.StatusCode, resp.Close)
	}
	if resp := viewer.get(t, "/api/health", tokens.Viewer); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("a viewer during the flood: %d, Connection: close %v; want 200, kept alive", resp.StatusCode, resp.Close)
	}

	held := map[string]int{}
	total := 0
	for _, c := range flood {
		if c.open() {
			held[c.LocalAddr().(*net.TCPAddr).IP.String()]++
			total++
		}
	}
	t.Logf("flood: %d connections from %d addresses, %d held (%v); the operator and the viewer got 200", len(flood), floodAddrs, total, held)
	// The operator's connection displaced one stranger; the viewer's
	// found room, being trusted before it came.
	if total < maxStrangers-2 || total > maxStrangers {
		t.Errorf("the flood holds %d connections, want the strangers' share, %d, less those the operator and viewer displaced", total, maxStrangers)
	}
	for ip, n := range held {
		if n > perAddr {
			t.Errorf("%s holds %d connections without a token, more than %d", ip, n, perAddr)
		}
	}

	// Trusted connections are not capped per address: an operator's page
	// and scripts may keep many.
	conns := []*rawConn{operator}
	for range perAddr + 2 {
		c := dialFrom(t, "127.0.0.1", addr)
		if resp := c.get(t, "/api/health", tokens.Operator); resp.StatusCode != http.StatusOK {
			t.Fatalf("another connection of the operator's got %d", resp.StatusCode)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		if resp := c.get(t, "/api/health", tokens.Operator); resp.StatusCode != http.StatusOK {
			t.Fatalf("the operator's connection %d, used again, got %d", i, resp.StatusCode)
		}
	}
}

// A burst of new connections from one address, as a script's pool opens
// them, is let in whole: each shows its token in time.
func TestABurstFromOneAddressIsServed(t *testing.T) {
	const perAddr = 4
	ts := start(t, setup{config: func(c *server.Config) {
		c.Access = server.Access{Tokens: tokens}
		c.Strangers = server.StrangerLimits{PerAddr: perAddr, Grace: time.Hour}
	}})
	addr := strings.TrimPrefix(ts.url, "http://")
	var burst []*rawConn
	for range 3 * perAddr {
		burst = append(burst, dialFrom(t, "127.0.0.2", addr))
	}
	for i, c := range burst {
		if resp := c.get(t, "/api/health", tokens.Viewer); resp.StatusCode != http.StatusOK {
			t.Fatalf("connection %d of the burst got %d", i, resp.StatusCode)
		}
	}
}

// One address that opens connections faster than their grace runs out
// keeps at most a quarter of the strangers' share; the others are
// refused, and the operator and the class still get in.
func TestOneAddressCannotFillTheSlots(t *testing.T) {
	const maxConns = 40
	const burst = maxConns / 2 / 4 // a quarter of the strangers' share
	ts := start(t, setup{config: func(c *server.Config) {
		c.Access = server.Access{Tokens: tokens}
		c.MaxConns = maxConns
		c.Strangers = server.StrangerLimits{PerAddr: 2, Idle: time.Hour, Grace: time.Hour}
	}})
	addr := strings.TrimPrefix(ts.url, "http://")
	var flood []*rawConn
	for range maxConns {
		flood = append(flood, dialFrom(t, "127.0.0.2", addr))
	}
	// The server accepts them in order: the first few are kept, waiting
	// for a request; the rest are answered at once.
	for i, c := range flood[burst:] {
		resp := c.read(t, nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "from this address") {
			t.Fatalf("connection %d of the flood: %d %s, want 503 saying the address has too many", burst+i, resp.StatusCode, body)
		}
	}
	for i, c := range flood[:burst] {
		if !c.open() {
			t.Errorf("connection %d of the flood was closed; the first %d are kept", i, burst)
		}
	}
	for who, token := range map[string]string{"the operator": tokens.Operator, "a viewer": tokens.Viewer} {
		if resp := dialFrom(t, "127.0.0.1", addr).get(t, "/api/health", token); resp.StatusCode != http.StatusOK {
			t.Errorf("%s during the flood got %d", who, resp.StatusCode)
		}
	}
}

// rawConn is one client connection, with its requests written by hand so
// that a test knows which connection each goes on.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

// dialFrom connects to addr from the loopback address local.
func dialFrom(t *testing.T, local, addr string) *rawConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// get sends GET path, with the token when there is one, and reads the
// answer whole.
func (c *rawConn) get(t *testing.T, path, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+c.RemoteAddr().String()+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second)) // bounds a failure only
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	return c.read(t, req)
}

// read reads the answer to req (nil for none sent) whole.
func (c *rawConn) read(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // bounds a failure only
	resp, err := http.ReadResponse(c.r, req)
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// open reports whether the server still holds c: a connection it closed
// reads end of file at once, one it holds has nothing to read.
func (c *rawConn) open() bool {
	_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := c.r.ReadByte()
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
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
		c.ReadTimeout, c.IdleTimeout, c.Strangers.Idle = 100*time.Millisecond, 100*time.Millisecond, 100*time.Millisecond
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
