package mcpbridge_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpbridge"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/mcp"
)

var transports = []string{mcp.TransportHTTP, mcp.TransportSSE}

func TestToolscopeClientCallsTheCalculatorThroughTheBridge(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			_, url := bridge(t, command("calculator"), quiet)
			hub := connect(t, at(url, transport))
			want := []string{"add", "subtract", "multiply", "divide", "sqrt", "power", "round_number"}
			if got := toolNames(hub); !sameSet(got, want) {
				t.Errorf("tools = %v, want the calculator's %v", got, want)
			}
			if got := call(t, hub, "multiply", `{"a": 6, "b": 7}`); got != "42" {
				t.Errorf("multiply(6, 7) = %q", got)
			}
			// The server's own errors pass through as they are.
			_, err := find(t, hub, "divide").Call(t.Context(), []byte(`{"a": 1, "b": 0}`))
			if err == nil || !strings.Contains(err.Error(), "cannot divide 1 by zero") {
				t.Errorf("divide(1, 0) = %v, want the calculator's error", err)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// Each client gets its own process, which ends with its session: when
// the client sends DELETE (streamable HTTP), closes its stream (SSE), or
// the bridge closes. (Clients of 2026-07-28 have no sessions, and share
// one process: TestStatelessRequestsShareOneProcess.)
func TestEachSessionHasItsOwnProcess(t *testing.T) {
	b, _ := bridge(t, command("lab"), quiet)
	url := sessionsOnly(t, b)
	pids := map[string]int{}
	hubs := map[string]*mcp.Hub{}
	for _, transport := range transports {
		for _, client := range []string{"a", "b"} {
			name := transport + " " + client
			hubs[name] = connect(t, at(url, transport))
			pid, err := strconv.Atoi(call(t, hubs[name], "pid", `{}`))
			if err != nil {
				t.Fatal(err)
			}
			pids[name] = pid
		}
	}
	seen := map[int]string{}
	for name, pid := range pids {
		if other, ok := seen[pid]; ok {
			t.Fatalf("clients %s and %s share process %d", name, other, pid)
		}
		seen[pid] = name
	}

	for _, transport := range transports {
		name := transport + " a"
		hubs[name].Close()
		eventually(t, "the process of "+name+", closed", func() error { return reaped(pids[name]) })
		// The other client's process is still its own.
		other := transport + " b"
		if got := call(t, hubs[other], "pid", `{}`); got != strconv.Itoa(pids[other]) {
			t.Errorf("%s's process is now %s, want %d still", other, got, pids[other])
		}
	}

	b.Close() // returns once its children are reaped
	for _, transport := range transports {
		name := transport + " b"
		if err := reaped(pids[name]); err != nil {
			t.Errorf("after Close, the process of %s: %v", name, err)
		}
	}
}

// A call's progress comes back, its cancellation reaches the server, and
// the server's stderr reaches the bridge's log under the session's name.
func TestProgressAndCancellationPassThrough(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			log := newLog()
			opts := quiet
			opts.Logger = log.logger()
			_, url := bridge(t, command("lab"), opts)
			hub := connect(t, at(url, transport))

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var (
				mu   sync.Mutex
				wire []tools.WireMessage
			)
			ctx = tools.WithRecorder(ctx, func(m tools.WireMessage) {
				mu.Lock()
				defer mu.Unlock()
				wire = append(wire, m)
				if m.Direction == "received" && strings.Contains(string(m.Body), `"notifications/progress"`) {
					cancel()
				}
			})
			_, err := find(t, hub, "wait").Call(ctx, []byte(`{}`))
			if err == nil || !strings.Contains(err.Error(), "stopped before it answered") {
				t.Errorf("wait = %v, want it stopped", err)
			}
			mu.Lock()
			var got []string
			for _, m := range wire {
				got = append(got, m.Direction+" "+string(m.Body))
			}
			mu.Unlock()
			for _, want := range []string{`received {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"toolscope-1","message":"waiting to be cancelled","progress":1}}`, `sent {"jsonrpc":"2.0","method":"notifications/cancelled"`} {
				if !slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, want) }) {
					t.Errorf("the call's messages lack %s:\n%s", want, strings.Join(got, "\n"))
				}
			}
			log.waitFor(t, "session 1: wait: cancelled by the client")
		})
	}
}

func TestListChangedPassesThrough(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			_, url := bridge(t, command("lab"), quiet)
			hub := connect(t, at(url, transport))
			changed := make(chan struct{}, 1)
			hub.OnToolsChanged(func() {
				select {
				case changed <- struct{}{}:
				default:
				}
			})
			call(t, hub, "grow", `{}`)
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatalf("no notifications/tools/list_changed came through; tools are %v", toolNames(hub))
			}
			if got := call(t, hub, "grown", `{}`); got != "grown" {
				t.Errorf("grown = %q", got)
			}
		})
	}
}

// The server's own requests reach the client, and the client's protocol
// version is the one the server sees.
func TestServerRequestsAndTheProtocolVersionPassThrough(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			_, url := bridge(t, command("lab"), quiet)
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1.0.0"}, &sdk.ClientOptions{
				CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
					return &sdk.CreateMessageResult{Model: "test", Role: "assistant", Content: &sdk.TextContent{Text: "4"}}, nil
				},
			})
			var transportOf sdk.Transport = &sdk.StreamableClientTransport{Endpoint: at(url, transport).URL}
			if transport == mcp.TransportSSE {
				transportOf = &sdk.SSEClientTransport{Endpoint: at(url, transport).URL}
			}
			const older = "2025-03-26"
			session, err := client.Connect(t.Context(), transportOf, &sdk.ClientSessionOptions{ProtocolVersion: older})
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			if got := session.InitializeResult().ServerInfo.Name; got != "lab" {
				t.Errorf("server = %q, want the bridged server's own name", got)
			}
			if got := session.InitializeResult().ProtocolVersion; got != older {
				t.Errorf("negotiated protocol version = %s, want the client's %s", got, older)
			}
			for tool, want := range map[string]string{"version": older, "ask": "the client's model said 4"} {
				res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: tool})
				if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != want {
					t.Errorf("%s = %+v, %v; want %q", tool, res, err, want)
				}
			}
			if err := session.Ping(t.Context(), nil); err != nil {
				t.Errorf("ping: %v", err)
			}
		})
	}
}

// A server that exits answers the calls it left with an error saying how
// it ended and what it last wrote; and one that exits at once answers
// the client's initialize so.
func TestAServerThatExitsIsAnError(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			_, url := bridge(t, command("lab"), quiet)
			hub := connect(t, at(url, transport))
			_, err := find(t, hub, "crash").Call(t.Context(), []byte(`{}`))
			for _, want := range []string{"stopped before it answered (exit status 3)", "its last output:\nlab: crashing on request"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("crash = %v, want %q", err, want)
				}
			}

			_, url = bridge(t, command("exit"), quiet)
			hub, err = mcp.Connect(t.Context(), []mcp.ServerSpec{at(url, transport)}, hubOptions)
			defer hub.Close()
			for _, want := range []string{"stopped before it answered (exit status 3)", "fatal: EXAMPLE_API_KEY is not set"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("connecting = %v, want %q", err, want)
				}
			}
		})
	}
}

func TestTheTokenIsRequired(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			opts := quiet
			opts.Token = "s3cret"
			_, url := bridge(t, command("calculator"), opts)
			spec := at(url, transport)
			hub, err := mcp.Connect(t.Context(), []mcp.ServerSpec{spec}, hubOptions)
			hub.Close()
			if err == nil || !strings.Contains(err.Error(), "it wants credentials") {
				t.Errorf("with no token: %v", err)
			}
			spec.Headers = map[string]string{"Authorization": "Bearer s3cret"}
			if got := call(t, connect(t, spec), "add", `{"a": 2, "b": 3}`); got != "5" {
				t.Errorf("add(2, 3) = %q", got)
			}
		})
	}
}

// A client that goes away without a word, holding no request open, loses
// its session, and the process with it, after the idle timeout.
func TestAnIdleSessionEnds(t *testing.T) {
	opts := quiet
	opts.IdleTimeout = 200 * time.Millisecond
	_, url := bridge(t, command("lab"), opts)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1.0.0"}, nil)
	// Without its GET stream open, the client holds no request between
	// calls.
	transport := &sdk.StreamableClientTransport{Endpoint: url + mcpbridge.PathHTTP, DisableStandaloneSSE: true}
	session, err := client.Connect(t.Context(), transport, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "pid"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Content[0].(*sdk.TextContent).Text)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the idle session's process", func() error { return reaped(pid) })
	if _, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "pid"}); !errors.Is(err, sdk.ErrSessionMissing) {
		t.Errorf("a call after the session ended: %v, want %v", err, sdk.ErrSessionMissing)
	}
}

func TestNewChecksTheCommand(t *testing.T) {
	for _, c := range []struct {
		command []string
		opts    mcpbridge.Options
		want    string
	}{
		{nil, quiet, "no command to bridge; give one"},
		{[]string{"no-such-mcp-server"}, quiet, `cannot run "no-such-mcp-server": executable file not found in $PATH; install it, or give its full path`},
		{command("lab"), mcpbridge.Options{Transport: "stdio"}, `unknown transport "stdio"; use http or sse`},
	} {
		if _, err := mcpbridge.New(c.command, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q) = %v, want %q", c.command, err, c.want)
		}
	}
}

// Requests that open no session, or name none, are refused with the HTTP
// status a client acts on.
func TestRequestsOutsideASession(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	sse := quiet
	sse.Transport = mcp.TransportSSE
	_, sseOnly := bridge(t, command("lab"), sse)
	const (
		stream = "text/event-stream"
		both   = "application/json, text/event-stream"
		ping   = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	)
	for _, c := range []struct {
		method, url, accept, session, body string
		host                               string
		status                             int
		want                               string
	}{
		{"GET", url + "/", stream, "", "", "", 404, "answers at /mcp and /sse"},
		{"GET", sseOnly + "/mcp", stream, "", "", "", 404, "answers at /sse"},
		{"POST", url + "/mcp", both, "", ping, "", 400, "a session begins with an initialize request"},
		{"GET", url + "/mcp", stream, "", "", "", 400, "GET needs the header Mcp-Session-Id"},
		{"POST", url + "/mcp", both, "gone", ping, "", 404, "no such session"},
		{"DELETE", url + "/mcp", "", "gone", "", "", 404, "no such session"},
		{"POST", url + "/mcp", "application/json", "", ping, "", 400, "must accept both"},
		{"PUT", url + "/mcp", both, "", ping, "", 405, "takes GET, POST and DELETE"},
		{"POST", url + "/sse?sessionid=gone", both, "", ping, "", 404, "no such session"},
		// a web page's name, resolved to the loopback address
		{"POST", url + "/mcp", both, "", ping, "attacker.example:80", 403, `which "attacker.example:80" does not name`},
		// an address written out is no page's name
		{"POST", url + "/mcp", both, "", ping, "[::]:8765", 400, "a session begins with an initialize request"},
	} {
		req, err := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", c.accept)
		if c.session != "" {
			req.Header.Set("Mcp-Session-Id", c.session)
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.url, resp.StatusCode, body, c.status, c.want)
		}
	}
}

// On the wire: progress comes on the stream of the request it reports
// on, before the answer; a method the SDK does not know reaches the
// server, whose answer comes back; and cancelling a request ends its
// stream.
func TestStreamableHTTPOnTheWire(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	c := &wireClient{url: url + mcpbridge.PathHTTP}
	events := c.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	if len(events) != 1 || !strings.Contains(events[0], `"protocolVersion":"2025-06-18"`) || c.session == "" {
		t.Fatalf("initialize: session %q, events %q", c.session, events)
	}
	if events := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); len(events) != 0 {
		t.Errorf("a notification was answered: %q", events)
	}
	events = c.post(t, `{"jsonrpc":"2.0","id":2,"method":"tasks/list"}`)
	if len(events) != 1 || !strings.Contains(events[0], `"id":2,"error":{"code":-32601`) {
		t.Errorf("tasks/list = %q, want the server's own answer, method not found", events)
	}

	// wait reports progress, then waits to be cancelled.
	resp := c.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"p3"}}}`)
	defer resp.Body.Close()
	stream := bufio.NewReader(resp.Body)
	if event := nextEvent(t, stream); !strings.Contains(event, `"method":"notifications/progress","params":{"progressToken":"p3"`) {
		t.Errorf("the call's stream began with %q, want its progress", event)
	}
	c.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	if event := nextEvent(t, stream); event != "" {
		t.Errorf("after the cancellation, the call's stream carried %q, want its end", event)
	}
}

// wireClient speaks streamable HTTP by hand.
type wireClient struct {
	url, session string
}

func (c *wireClient) send(t *testing.T, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", c.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return resp
}

// post sends body and returns the data of the events that answer it.
func (c *wireClient) post(t *testing.T, body string) []string {
	t.Helper()
	resp := c.send(t, body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s: %s", body, resp.Status)
	}
	var events []string
	stream := bufio.NewReader(resp.Body)
	for event := nextEvent(t, stream); event != ""; event = nextEvent(t, stream) {
		events = append(events, event)
	}
	return events
}

// nextEvent reads the data of the next event of a stream, or "" at its
// end.
func nextEvent(t *testing.T, stream *bufio.Reader) string {
	t.Helper()
	var data []string
	for {
		line, err := stream.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "" && len(data) > 0:
			return strings.Join(data, "\n")
		}
		if err != nil {
			return strings.Join(data, "\n")
		}
	}
}

// Past MaxSessions, a client that would open one more session, and start
// one more process, is refused with 503 and the reason, until one ends.
func TestSessionsAreLimited(t *testing.T) {
	opts := quiet
	opts.MaxSessions = 2
	_, url := bridge(t, command("lab"), opts)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`
	var clients []*wireClient
	for range opts.MaxSessions {
		c := &wireClient{url: url + mcpbridge.PathHTTP}
		c.post(t, initialize)
		clients = append(clients, c)
	}

	const why = "the bridge has 2 sessions open, as many as it serves at once; try again once a client ends its own"
	extra := &wireClient{url: url + mcpbridge.PathHTTP}
	resp := extra.send(t, initialize)
	if body := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"id":1,"error":{"code":-32603,"message":"toolscope mcp bridge: `+why) {
		t.Errorf("initialize past the limit: %s %s, want 503 and a JSON-RPC error saying why", resp.Status, body)
	}
	if extra.session != "" {
		t.Errorf("a refused initialize opened session %q", extra.session)
	}
	req, _ := http.NewRequest("GET", url+mcpbridge.PathSSE, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		resp.Body.Close() // an event stream, which would not end
		t.Errorf("an SSE session past the limit: %s, want 503", resp.Status)
	} else if body := readAll(t, resp); !strings.Contains(body, why) {
		t.Errorf("an SSE session past the limit: %s, want the reason, %q", body, why)
	}

	// Once a client ends its session, another may open one.
	req, _ = http.NewRequest("DELETE", clients[0].url, nil)
	req.Header.Set("Mcp-Session-Id", clients[0].session)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	if readAll(t, resp); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	if events := extra.post(t, initialize); len(events) != 1 || extra.session == "" {
		t.Errorf("initialize once a session ended: session %q, events %q", extra.session, events)
	}
}

// Clients of 2026-07-28 send server/discover, then each request alone,
// with no session: the bridge serves them all with one process, under
// ids of its own, since two clients choose the same ones; each gets its
// own answers, and the list changes it listens for.
func TestStatelessRequestsShareOneProcess(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	a, b := connect(t, at(url, mcp.TransportHTTP)), connect(t, at(url, mcp.TransportHTTP))
	for _, hub := range []*mcp.Hub{a, b} {
		if got := hub.Servers()[0].Protocol; got != "2026-07-28" {
			t.Errorf("protocol = %q, want 2026-07-28", got)
		}
	}
	if pa, pb := call(t, a, "pid", `{}`), call(t, b, "pid", `{}`); pa != pb {
		t.Errorf("two clients of 2026-07-28 got processes %s and %s, want one", pa, pb)
	}
	changed := make(chan struct{}, 1)
	b.OnToolsChanged(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	call(t, a, "grow", `{}`)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("the other client never heard of the new tool; its tools are %v", toolNames(b))
	}
	if got := call(t, b, "grown", `{}`); got != "grown" {
		t.Errorf("grown = %q", got)
	}
}

// The shared child sends a list change that any listen asked for, so
// the bridge gives each listen only the kinds it asked for: one for
// prompts alone hears nothing of the tools, one for tools hears of them.
func TestEachListenHearsOnlyTheChangesItAskedFor(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	listen := func(kind string) *bufio.Reader {
		resp := post2026(t, url, "subscriptions/listen", "", "", `"notifications":{"`+kind+`ListChanged":true}`)
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("listen for %s: %s", kind, resp.Status)
		}
		stream := bufio.NewReader(resp.Body)
		if ack := nextEvent(t, stream); !strings.Contains(ack, "notifications/subscriptions/acknowledged") || !strings.Contains(ack, `"`+kind+`ListChanged":true`) {
			t.Fatalf("listen for %s began with %q, want its acknowledgement", kind, ack)
		}
		return stream
	}
	prompts, tools := listen("prompts"), listen("tools")
	post := func(tool string) {
		if resp := post2026(t, url, "tools/call", tool, "", `"name":"`+tool+`","arguments":{}`); resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s %s", tool, resp.Status, readAll(t, resp))
		} else {
			readAll(t, resp)
		}
	}
	post("grow")
	if got := nextEvent(t, tools); !strings.Contains(got, "notifications/tools/list_changed") {
		t.Errorf("the listen for tools heard %q, want notifications/tools/list_changed", got)
	}
	// The bridge hands a change to every listen at once, so by now the
	// tools' change has gone to the listen for prompts, if at all: the
	// first change it hears must be the prompts'.
	post("sprout")
	if got := nextEvent(t, prompts); !strings.Contains(got, "notifications/prompts/list_changed") {
		t.Errorf("the listen for prompts alone heard %q, want notifications/prompts/list_changed", got)
	}
}

// The child sees no HTTP headers, so the bridge checks a 2026-07-28
// request's headers against its body, as the revision wants. A request
// whose _meta names 2026-07-28 but that lacks the MCP-Protocol-Version
// header is told the header is missing (as mcpserver and the SDK tell
// it), not that a session begins with initialize.
func TestStatelessHeadersAreChecked(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	for _, c := range []struct {
		version, method, name, body, want string
	}{
		{"2026-07-28", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, `"code":-32602`},
		{"2026-07-28", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, `"code":-32020`},
		{"2026-07-28", "tools/call", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, `the header Mcp-Method \"tools/call\" does not match the request's method \"tools/list\"`},
		{"2026-07-28", "tools/call", "grow", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"pid"}}`, `the header Mcp-Name \"grow\" does not match the request's name \"pid\"`},
		{"", "tools/list", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`, `"code":-32020,"message":"toolscope mcp bridge: the header Mcp-Protocol-Version is required`},
	} {
		req, _ := http.NewRequest(http.MethodPost, url+mcpbridge.PathHTTP, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.version != "" {
			req.Header.Set("Mcp-Protocol-Version", c.version)
		}
		req.Header.Set("Mcp-Method", c.method)
		if c.name != "" {
			req.Header.Set("Mcp-Name", c.name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, c.want) {
			t.Errorf("%s: %s %s, want 400 saying %s", c.body, resp.Status, body, c.want)
		}
	}
}

// What the shared child of the 2026-07-28 requests sends that belongs to
// no request goes to no client that did not ask for it: a log notice goes
// to the bridge's log, not to the stream of the request in flight, and a
// request of the child's (here ping) is refused at once, so the
// child goes on rather than waiting for an answer no client will give.
func TestTheSharedProcessKeepsItsChatterToItself(t *testing.T) {
	log := newLog()
	_, url := bridge(t, command("lab"), mcpbridge.Options{ShutdownTimeout: 100 * time.Millisecond, Logger: log.logger()})
	resp := post2026(t, url, "tools/call", "chatter", `"io.modelcontextprotocol/logLevel":"debug"`, `"name":"chatter","arguments":{}`)
	got := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(got, `"id":1,"result"`) || !strings.Contains(got, "the bridge's shared 2026-07-28 session has no single client to ask ping") {
		t.Errorf("chatter: %s %s, want its result, saying the bridge refused ping", resp.Status, got)
	}
	if strings.Contains(got, "notifications/message") || strings.Contains(got, `"method":"ping"`) {
		t.Errorf("chatter's stream carried the child's own chatter: %s", got)
	}
	log.waitFor(t, "chatter's notice")
}

// post2026 sends a 2026-07-28 request of method, with the headers the
// revision wants (name: the Mcp-Name, if any) and params (besides _meta,
// which carries the revision, the client and, after them, meta).
func post2026(t *testing.T, url, method, name, meta, params string) *http.Response {
	t.Helper()
	if meta != "" {
		meta = "," + meta
	}
	if params != "" {
		params = "," + params
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}` + meta + `}` + params + `}}`
	req, _ := http.NewRequest(http.MethodPost, url+mcpbridge.PathHTTP, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A 2026-07-28 request whose stream could carry nothing but its answer
// (no progress token, not subscriptions/listen) is answered as plain JSON
// once the child answers, so that the child's error gets the HTTP status
// the revision gives it: 404 for a method not found, 400 for invalid
// params. One with a progress token is answered on an event stream, as
// its progress may come first.
func TestStatelessErrorsGetTheirHTTPStatus(t *testing.T) {
	_, url := bridge(t, command("lab"), quiet)
	for _, c := range []struct {
		method, name, meta, params string
		status                     int
		contentType, want          string
	}{
		{"tools/call", "pid", "", `"name":"pid","arguments":{}`, http.StatusOK, "application/json", `"id":1,"result"`},
		{"tasks/list", "", "", "", http.StatusNotFound, "application/json", `"id":1,"error":{"code":-32601`},
		{"tools/call", "nonesuch", "", `"name":"nonesuch","arguments":{}`, http.StatusBadRequest, "application/json", `"id":1,"error":{"code":-32602`},
		{"tools/call", "pid", `"progressToken":"p1"`, `"name":"pid","arguments":{}`, http.StatusOK, "text/event-stream", `"id":1,"result"`},
	} {
		resp := post2026(t, url, c.method, c.name, c.meta, c.params)
		got := readAll(t, resp)
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != c.contentType || !strings.Contains(got, c.want) {
			t.Errorf("%s %s (%s): %s, %s: %s; want %d, %s: %s", c.method, c.name, c.meta, resp.Status, resp.Header.Get("Content-Type"), got, c.status, c.contentType, c.want)
		}
	}
}
