package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

// find returns the tool of the hub with the given name.
func find(t *testing.T, hub *mcp.Hub, name string) tools.Tool {
	t.Helper()
	for _, tool := range hub.Tools() {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no tool %q; the hub has %v", name, names(hub.Tools()))
	return nil
}

func names(ts []tools.Tool) []string {
	var ns []string
	for _, t := range ts {
		ns = append(ns, t.Name())
	}
	return ns
}

// call calls a tool and records the messages it exchanged.
func call(t *testing.T, tool tools.Tool, args string) (string, error, []tools.WireMessage) {
	t.Helper()
	var (
		mu   sync.Mutex
		wire []tools.WireMessage
	)
	ctx := tools.WithRecorder(t.Context(), func(m tools.WireMessage) {
		mu.Lock()
		defer mu.Unlock()
		wire = append(wire, m)
	})
	out, err := tool.Call(ctx, json.RawMessage(args))
	mu.Lock()
	defer mu.Unlock()
	return out, err, slices.Clone(wire)
}

func wantError(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one saying %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not say %q", err, f)
		}
	}
}

var transports = []string{mcp.TransportStdio, mcp.TransportHTTP, mcp.TransportSSE}

// spec is the spec of one of the test servers over transport.
func spec(t *testing.T, role, transport string) mcp.ServerSpec {
	if transport == mcp.TransportStdio {
		return stdio(role)
	}
	return overHTTP(t, role, servers[role](), transport)
}

func TestOurServers(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			hub := connect(t, quick, spec(t, "calculator", transport), spec(t, "converter", transport))

			want := []string{"add", "subtract", "multiply", "divide", "sqrt", "power", "round_number",
				"celsius_to_fahrenheit", "fahrenheit_to_celsius", "convert_length", "convert_weight"}
			got := names(hub.Tools())
			slices.Sort(got[:7]) // each server lists its tools in its own order
			slices.Sort(got[7:])
			slices.Sort(want[:7])
			slices.Sort(want[7:])
			if !slices.Equal(got, want) {
				t.Fatalf("tools = %v, want %v", got, want)
			}
			if _, err := tools.NewRegistry(hub.Tools()...); err != nil {
				t.Fatalf("the registry refuses the tools: %v", err)
			}
			if src := tools.SourceOf(find(t, hub, "multiply")); src != "mcp:calculator" {
				t.Errorf("multiply comes from %q", src)
			}
			if src := tools.SourceOf(find(t, hub, "convert_weight")); src != "mcp:converter" {
				t.Errorf("convert_weight comes from %q", src)
			}
			if d := find(t, hub, "multiply").Description(); d != "Multiply two numbers. Example: multiply(a=6, b=7) returns 42" {
				t.Errorf("multiply's description = %q", d)
			}

			calls := []struct {
				tool, args, want, wantErr string
			}{
				{"multiply", `{"a": 27, "b": 15}`, "405", ""},
				{"multiply", `{"x": "6", "y": "7"}`, "42", ""},
				{"power", `{"base": 2, "exponent": 10}`, "1024", ""},
				{"divide", `{"numerator": 10, "denominator": 4}`, "2.5", ""},
				{"divide", `{"a": 6, "b": 0}`, "", "cannot divide 6 by zero"},
				{"sqrt", `{"number": -4}`, "", "square root of a negative number (-4)"},
				{"add", `{"a": 1}`, "", `add needs "b" (the second number)`},
				{"celsius_to_fahrenheit", `{"celsius": 100}`, "100 °C = 212 °F", ""},
				{"convert_length", `{"value": 5, "from_unit": "km", "to_unit": "miles"}`, "5 km = 3.106856 mi", ""},
			}
			for _, c := range calls {
				out, err, wire := call(t, find(t, hub, c.tool), c.args)
				if c.wantErr != "" {
					wantError(t, err, c.wantErr)
				} else if err != nil || out != c.want {
					t.Errorf("%s(%s) = %q, %v; want %q", c.tool, c.args, out, err, c.want)
				}
				checkWire(t, wire, c.tool)
			}
		})
	}
}

// checkWire checks that a call recorded its request and the response to it.
func checkWire(t *testing.T, wire []tools.WireMessage, tool string) {
	t.Helper()
	if len(wire) != 2 || wire[0].Direction != "sent" || wire[1].Direction != "received" {
		t.Fatalf("recorded %d messages, want the request and its response: %s", len(wire), wire)
	}
	var req, resp struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(wire[0].Body, &req); err != nil || req.Method != "tools/call" || req.Params.Name != tool {
		t.Errorf("sent %s, want a tools/call of %s", wire[0].Body, tool)
	}
	if err := json.Unmarshal(wire[1].Body, &resp); err != nil || !bytes.Equal(resp.ID, req.ID) || resp.Result == nil {
		t.Errorf("received %s, want the result for id %s", wire[1].Body, req.ID)
	}
}

func TestHandmadeServer(t *testing.T) {
	var log logs
	opts := quick
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	hub := connect(t, opts, stdio("handmade"))

	// The SDK leaves out a tool whose x-mcp-header annotations clash;
	// toolscope says so as of its own checks, not in the SDK's words.
	if w := strings.Join(hub.Servers()[0].Warnings, "\n"); !strings.Contains(w, `tool "headers" left out: property `) || !strings.Contains(w, "duplicate x-mcp-header value") {
		t.Errorf("warnings = %q, want the tool the SDK left out", w)
	}
	if l := log.String(); strings.Contains(l, "excluding tool from tools/list") || !strings.Contains(l, "tool=headers") {
		t.Errorf("the log says it in the SDK's words, or not at all:\n%s", l)
	}

	// Both pages of tools are there, and the schema that lacked a type
	// has one, with its properties still in the server's order.
	if got := names(hub.Tools()); !slices.Equal(got, []string{"first", "second"}) {
		t.Fatalf("tools = %v, want both pages", got)
	}
	if _, err := tools.NewRegistry(hub.Tools()...); err != nil {
		t.Fatal(err)
	}
	wantParameters(t, find(t, hub, "first"), `{"type":"object","properties":{"q":{"type":"string"},"lang":{"type":"string"}}}`, "q", "lang")

	out, err, wire := call(t, find(t, hub, "first"), `{"q": "hi"}`)
	if err != nil || out != `first got {"q":"hi"}` {
		t.Fatalf("first = %q, %v", out, err)
	}
	checkWire(t, wire, "first")
	// The recorded bodies are the bytes that crossed the pipe.
	if want := `"result":{"content":[{"text":"first got {\"q\":\"hi\"}","type":"text"}]}}`; !strings.HasSuffix(string(wire[1].Body), want) {
		t.Errorf("received %s, want the server's own bytes", wire[1].Body)
	}
}

func TestContent(t *testing.T) {
	hub := connect(t, quick, overHTTP(t, "content", contentServer(), mcp.TransportHTTP))

	out, err, _ := call(t, find(t, hub, "mixed"), `{}`)
	want := strings.Join([]string{
		"first", "second",
		"[image: image/png, 12 KB]",
		"[audio: audio/wav, 4 bytes]",
		"[resource link: notes <file:///notes.txt>]",
		"embedded text",
		"[resource: file:///b.bin, application/octet-stream, 2 KB]",
	}, "\n")
	if err != nil || out != want {
		t.Errorf("mixed = %q, %v; want %q", out, err, want)
	}
	if out, err, _ := call(t, find(t, hub, "structured"), `{}`); err != nil || out != `{"temperature":21}` {
		t.Errorf("structured = %q, %v", out, err)
	}
	_, err, wire := call(t, find(t, hub, "fail"), `{}`)
	if err == nil || err.Error() != "no such file: notes.txt" {
		t.Errorf("fail: error %v, want the tool's own text", err)
	}
	checkWire(t, wire, "fail")
	_, err, _ = call(t, find(t, hub, "fail_silently"), `{}`)
	wantError(t, err, "fail_silently failed without saying why")

	// A tool whose schema toolscope cannot use is left out, and says so.
	if slices.Contains(names(hub.Tools()), "dangling_ref") {
		t.Error("dangling_ref is offered, though its schema refers to another document")
	}
	if info := hub.Servers()[0]; !strings.Contains(strings.Join(info.Warnings, "\n"), `tool "dangling_ref" left out`) {
		t.Errorf("warnings = %q, want one about dangling_ref", info.Warnings)
	}
	if _, err := tools.NewRegistry(hub.Tools()...); err != nil {
		t.Error(err)
	}
}

// logs collects a logger's records.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func TestSameToolNameOnTwoServers(t *testing.T) {
	var log logs
	opts := quick
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	hub := connect(t, opts,
		overHTTP(t, "calculator", mcpserver.Calculator(), mcp.TransportHTTP),
		overHTTP(t, "my calc", mcpserver.Calculator(), mcp.TransportSSE),
		overHTTP(t, "converter", mcpserver.Converter(), mcp.TransportHTTP))

	got := names(hub.Tools())
	for _, want := range []string{"calculator_add", "my_calc_add", "calculator_round_number", "my_calc_round_number", "convert_length"} {
		if !slices.Contains(got, want) {
			t.Errorf("no tool %q in %v", want, got)
		}
	}
	if slices.Contains(got, "add") {
		t.Errorf("tools %v still offer a plain add", got)
	}
	if _, err := tools.NewRegistry(hub.Tools()...); err != nil {
		t.Fatal(err)
	}
	for name, source := range map[string]string{"calculator_add": "mcp:calculator", "my_calc_add": "mcp:my calc"} {
		tool := find(t, hub, name)
		if s := tools.SourceOf(tool); s != source {
			t.Errorf("%s comes from %q, want %q", name, s, source)
		}
		if out, err, _ := call(t, tool, `{"a": 2, "b": 3}`); err != nil || out != "5" {
			t.Errorf("%s = %q, %v", name, out, err)
		}
	}
	if !strings.Contains(log.String(), "several MCP servers offer a tool of the same name") || !strings.Contains(log.String(), "tool=add") {
		t.Errorf("no warning logged about add:\n%s", log.String())
	}
	if w := strings.Join(hub.Servers()[1].Warnings, "\n"); !strings.Contains(w, `the model calls this one "my_calc_add"`) {
		t.Errorf("my calc's warnings = %q", w)
	}
}

func TestUnusableToolsAreLeftOutAndTheOthersLoad(t *testing.T) {
	var log logs
	opts := quick
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	hub := connect(t, opts, overHTTP(t, "unruly", unrulyServer(), mcp.TransportHTTP))

	if got := names(hub.Tools()); !slices.Equal(got, []string{"lookup"}) {
		t.Fatalf("tools = %v, want lookup alone", got)
	}
	if out, err, _ := call(t, find(t, hub, "lookup"), `{}`); err != nil || out != "found" {
		t.Errorf("lookup = %q, %v", out, err)
	}
	warnings := strings.Join(hub.Servers()[0].Warnings, "\n")
	for _, want := range []string{
		`tool "x<svg/onload=alert(1)>" left out: tool name "x<svg/onload=alert(1)>" has '<' in it`,
		`tool "deep" left out: the parameters schema nests more than 64 levels deep`,
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings = %q, want %q", warnings, want)
		}
	}
	if l := log.String(); !strings.Contains(l, "server=unruly") || !strings.Contains(l, "tool=deep") {
		t.Errorf("the log does not name the server and the tool:\n%s", l)
	}
}

func TestToolListChanged(t *testing.T) {
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			hub := connect(t, quick, spec(t, "growing", transport))
			changed := make(chan struct{}, 1)
			hub.OnToolsChanged(func() { changed <- struct{}{} })

			if out, err, _ := call(t, find(t, hub, "grow"), `{}`); err != nil || out != "grown" {
				t.Fatalf("grow = %q, %v", out, err)
			}
			select {
			case <-changed:
			case <-t.Context().Done():
				t.Fatal("the tools never changed")
			}
			if out, err, _ := call(t, find(t, hub, "extra"), `{}`); err != nil || out != "extra works" {
				t.Errorf("extra = %q, %v", out, err)
			}
		})
	}
}

func TestNoiseOnStdoutIsTolerated(t *testing.T) {
	hub := connect(t, quick, stdio("noisy"))
	if out, err, _ := call(t, find(t, hub, "add"), `{"a": 1, "b": 2}`); err != nil || out != "3" {
		t.Fatalf("add = %q, %v", out, err)
	}
	info := hub.Servers()[0]
	if !slices.Contains(info.Log, "stdout: Calculator server v1 starting…") {
		t.Errorf("log = %q, want the banner", info.Log)
	}
	if len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], "not JSON-RPC on stdout") {
		t.Errorf("warnings = %q", info.Warnings)
	}
}

func TestBrokenServersAreReportedAndTheOthersWork(t *testing.T) {
	unreachable := mcp.ServerSpec{Name: "unreachable", URL: "http://" + nettest.ClosedAddress(t) + "/mcp"}
	hub, err := mcp.Connect(t.Context(), []mcp.ServerSpec{
		stdio("exit"), stdio("garbage"),
		{Name: "missing", Command: "no-such-mcp-server-anywhere"},
		unreachable,
		stdio("calculator"),
		overHTTP(t, "converter", mcpserver.Converter(), mcp.TransportHTTP),
	}, quick)
	defer hub.Close()

	for _, want := range [][]string{
		{`MCP server "exit"`, "exited during the handshake (exit status 3)", "fatal: EXAMPLE_API_KEY is not set"},
		{`MCP server "garbage"`, "exited during the handshake (exit status 64)", `it printed "unknown command; type help for help" on stdout, which is not JSON-RPC`},
		{`MCP server "missing": cannot start "no-such-mcp-server-anywhere"`, "install it, or fix the command"},
		{`MCP server "unreachable"`, "check the URL and that the server is running"},
	} {
		wantError(t, err, want...)
	}
	if got := names(hub.Tools()); len(got) != 11 {
		t.Errorf("tools = %v, want the calculator's and the converter's", got)
	}
	if out, err, _ := call(t, find(t, hub, "multiply"), `{"a": 6, "b": 7}`); err != nil || out != "42" {
		t.Errorf("multiply = %q, %v", out, err)
	}

	infos := hub.Servers()
	for i, want := range []mcp.State{mcp.StateFailed, mcp.StateFailed, mcp.StateFailed, mcp.StateFailed, mcp.StateReady, mcp.StateReady} {
		if infos[i].State != want {
			t.Errorf("%s is %s, want %s", infos[i].Name, infos[i].State, want)
		}
	}
	hub.Close()
	for _, info := range infos {
		if info.PID != 0 {
			wantReaped(t, info.PID)
		}
	}
	if infos := hub.Servers(); infos[4].State != mcp.StateClosed || len(hub.Tools()) != 0 {
		t.Errorf("after Close the calculator is %s and the hub has tools %v", infos[4].State, names(hub.Tools()))
	}
}

// A server that starts beside toolscope, as Docker Compose starts
// services, is asked again until it listens.
func TestAnHTTPServerNotListeningYetIsWaitedFor(t *testing.T) {
	addr := nettest.ClosedAddress(t)
	refused := make(chan struct{})
	opts := quick
	opts.StartWait = time.Minute
	opts.Logger = slog.New(&onMessage{msg: "MCP server not listening yet; asking again", seen: refused})
	h, err := mcpserver.Handler(mcpserver.Calculator(), mcp.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-refused
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		srv := &http.Server{Handler: h}
		t.Cleanup(func() { srv.Close() })
		srv.Serve(l)
	}()
	hub := connect(t, opts, mcp.ServerSpec{Name: "late", URL: "http://" + addr + "/mcp"})
	if out, err, _ := call(t, find(t, hub, "add"), `{"a": 1, "b": 2}`); err != nil || out != "3" {
		t.Errorf("add = %q, %v", out, err)
	}
}

// onMessage closes seen the first time a record's message is msg.
type onMessage struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h *onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}
func (h *onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *onMessage) WithGroup(string) slog.Handler      { return h }

func TestHandshakeTimeout(t *testing.T) {
	opts := quick
	opts.HandshakeTimeout = 200 * time.Millisecond
	hub, err := mcp.Connect(t.Context(), []mcp.ServerSpec{stdio("hang")}, opts)
	wantError(t, err, `MCP server "hang"`, "did not complete the MCP handshake within 200ms", "check that it is an MCP server")
	// It ignores the end of its input, so it takes a signal to stop it.
	hub.Close()
	wantReaped(t, hub.Servers()[0].PID)
}

func TestCrashMidCall(t *testing.T) {
	hub := connect(t, quick, stdio("crashing"), overHTTP(t, "calculator", mcpserver.Calculator(), mcp.TransportHTTP))
	changed := make(chan struct{}, 1)
	hub.OnToolsChanged(func() { changed <- struct{}{} })

	crash := find(t, hub, "crash")
	_, err, _ := call(t, crash, `{}`)
	wantError(t, err, `MCP server "crashing" crashed during the call to crash (exit status 2)`, "panic: the tool broke")

	select {
	case <-changed:
	case <-t.Context().Done():
		t.Fatal("the crashed server's tools were never withdrawn")
	}
	if slices.Contains(names(hub.Tools()), "ok") {
		t.Errorf("tools = %v still offer the crashed server's", names(hub.Tools()))
	}
	info := hub.Servers()[0]
	if info.State != mcp.StateFailed || !strings.Contains(info.Error, "stopped (exit status 2)") {
		t.Errorf("crashing is %s: %s", info.State, info.Error)
	}
	wantReaped(t, info.PID)
	_, err, _ = call(t, crash, `{}`)
	wantError(t, err, `MCP server "crashing" stopped (exit status 2)`)

	if out, err, _ := call(t, find(t, hub, "add"), `{"a": 1, "b": 1}`); err != nil || out != "2" {
		t.Errorf("the other server's add = %q, %v", out, err)
	}
}

func TestCancellationReachesTheServer(t *testing.T) {
	hub := connect(t, quick, stdio("slow"))
	ctx, cancel := context.WithCancel(t.Context())
	var (
		mu   sync.Mutex
		wire []tools.WireMessage
	)
	ctx = tools.WithRecorder(ctx, func(m tools.WireMessage) {
		mu.Lock()
		defer mu.Unlock()
		wire = append(wire, m)
	})
	result := make(chan error)
	go func() {
		_, err := find(t, hub, "wait").Call(ctx, nil)
		result <- err
	}()
	waitForLog(t, hub, startedLine)
	cancel()
	wantError(t, <-result, `the call to wait on MCP server "slow" was stopped before it answered`)
	waitForLog(t, hub, cancelledLine)
	mu.Lock()
	defer mu.Unlock()
	if len(wire) != 2 || !bytes.Contains(wire[1].Body, []byte(`"notifications/cancelled"`)) {
		t.Errorf("recorded %s, want the call and its cancellation", wire)
	}
}

func TestCallTimeout(t *testing.T) {
	opts := quick
	opts.Timeout = 50 * time.Millisecond
	hub := connect(t, opts, stdio("slow"))
	_, err, _ := call(t, find(t, hub, "wait"), `{}`)
	wantError(t, err, `MCP server "slow" did not answer the call to wait within 50ms`, "a longer tool timeout")
}

// A caller that times its calls itself (the agent, whose clock stands
// still while a person answers an elicitation) gets no timer of the
// client's: the call runs past Options.Timeout until the caller ends it.
func TestCallTimedByItsCaller(t *testing.T) {
	opts := quick
	opts.Timeout = 50 * time.Millisecond
	hub := connect(t, opts, stdio("slow"))
	ctx, cancel := context.WithCancel(tools.WithCallerTimeout(context.Background()))
	defer cancel()
	result := make(chan error, 1)
	go func() {
		_, err := find(t, hub, "wait").Call(ctx, nil)
		result <- err
	}()
	waitForLog(t, hub, startedLine)
	select {
	case err := <-result:
		t.Fatalf("the call ended before its caller ended it: %v", err)
	case <-time.After(10 * opts.Timeout):
	}
	cancel()
	wantError(t, <-result, `the call to wait on MCP server "slow" was stopped before it answered`)
}

// waitForLog waits until the hub's first server has logged line.
func waitForLog(t *testing.T, hub *mcp.Hub, line string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !slices.Contains(hub.Servers()[0].Log, line) {
		select {
		case <-deadline:
			t.Fatalf("the server never logged %q; its log: %q", line, hub.Servers()[0].Log)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func TestEndOfContextStopsTheServers(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	hub, err := mcp.Connect(ctx, []mcp.ServerSpec{stdio("calculator"), stdio("converter")}, quick)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, info := range hub.Servers() {
		pids = append(pids, info.PID)
	}
	cancel()
	hub.Close() // waits for the shutdown the context started
	for _, pid := range pids {
		wantReaped(t, pid)
	}
	if len(hub.Tools()) != 0 {
		t.Errorf("tools = %v after the context ended", names(hub.Tools()))
	}
}

func TestHeadersAreSent(t *testing.T) {
	h, err := mcpserver.Handler(mcpserver.Calculator(), mcp.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer let-me-in" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()

	hub := connect(t, quick, mcp.ServerSpec{Name: "guarded", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer let-me-in"}})
	if out, err, _ := call(t, find(t, hub, "add"), `{"a": 1, "b": 2}`); err != nil || out != "3" {
		t.Errorf("add = %q, %v", out, err)
	}
	hub.Close()

	hub, err = mcp.Connect(t.Context(), []mcp.ServerSpec{{Name: "guarded", URL: srv.URL}}, quick)
	defer hub.Close()
	wantError(t, err, `MCP server "guarded"`, "Unauthorized", `it wants credentials: give them as "headers"`)
}

func TestWrongPath(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	for transport, advice := range map[string]string{
		mcp.TransportHTTP: "streamable HTTP servers are usually at /mcp, and one at /sse speaks the older transport, for --mcp-sse",
		mcp.TransportSSE:  "SSE servers are usually at /sse, and one at /mcp speaks streamable HTTP, for --mcp",
	} {
		hub, err := mcp.Connect(t.Context(), []mcp.ServerSpec{{Name: "lost", URL: srv.URL + "/", Transport: transport}}, quick)
		hub.Close()
		wantError(t, err, `MCP server "lost" (`+srv.URL+"/)", "Not Found", advice)
	}
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	var servers []*httptest.Server
	specs := []mcp.ServerSpec{stdio("calculator")}
	for _, transport := range []string{mcp.TransportHTTP, mcp.TransportSSE} {
		h, err := mcpserver.Handler(mcpserver.Converter(), transport)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		servers = append(servers, srv)
		specs = append(specs, mcp.ServerSpec{Name: transport, URL: srv.URL, Transport: transport})
	}
	hub := connect(t, quick, specs...)
	for _, name := range []string{"add", "http_celsius_to_fahrenheit", "sse_celsius_to_fahrenheit"} {
		if _, err, _ := call(t, find(t, hub, name), `{"a": 1, "b": 2, "celsius": 1}`); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	hub.Close()
	for _, srv := range servers {
		srv.Close()
	}

	deadline := time.After(5 * time.Second)
	for runtime.NumGoroutine() > before {
		select {
		case <-deadline:
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		case <-time.After(10 * time.Millisecond):
		}
	}
}
