package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
)

// The client asks for 2026-07-28, and speaks whatever revision the
// server does: every call's messages are marked with it, and a change in
// the tools reaches toolscope on each (subscriptions/listen on
// 2026-07-28, the session's own stream before).
func TestProtocolRevisions(t *testing.T) {
	for _, c := range []struct {
		transport, revision, want string
	}{
		{mcp.TransportStdio, "", "2026-07-28"},
		{mcp.TransportStdio, "2025-11-25", "2025-11-25"},
		{mcp.TransportStdio, "2025-06-18", "2025-06-18"},
		{mcp.TransportHTTP, "", "2026-07-28"},
		{mcp.TransportHTTP, "2025-11-25", "2025-11-25"},
		{mcp.TransportHTTP, "2025-06-18", "2025-06-18"},
		{mcp.TransportHTTP, "2025-03-26", "2025-03-26"},
		// 2026-07-28 defines no SSE transport.
		{mcp.TransportSSE, "", "2025-11-25"},
		{mcp.TransportSSE, "2024-11-05", "2024-11-05"},
	} {
		t.Run(c.transport+"/"+c.want, func(t *testing.T) {
			t.Parallel()
			spec := stdio("growing")
			spec.Env[revisionEnv] = c.revision
			if c.transport != mcp.TransportStdio {
				spec = overHTTP(t, "growing", growingServerAt(c.revision), c.transport)
			}
			hub := connect(t, quick, spec)
			if got := hub.Servers()[0].Protocol; got != c.want {
				t.Errorf("protocol = %q, want %q", got, c.want)
			}
			changed := make(chan struct{}, 1)
			hub.OnToolsChanged(func() { changed <- struct{}{} })

			out, err, wire := call(t, find(t, hub, "grow"), `{}`)
			if err != nil || out != "grown" {
				t.Fatalf("grow = %q, %v", out, err)
			}
			if len(wire) != 2 {
				t.Fatalf("the call exchanged %d messages, want 2: %v", len(wire), wire)
			}
			for _, m := range wire {
				if m.Protocol != c.want {
					t.Errorf("%s message marked %q, want %q: %s", m.Direction, m.Protocol, c.want, m.Body)
				}
			}
			if meta := requestMeta(t, wire[0].Body); (c.want == "2026-07-28") != (meta != nil) {
				t.Errorf("tools/call _meta = %v at %s", meta, c.want)
			}
			if c.transport == mcp.TransportSSE {
				return
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

// requestMeta returns the per-request _meta that 2026-07-28 wants on
// every request, nil if the request lacks it, and fails the test if it
// is there but incomplete.
func requestMeta(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var req struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	meta := req.Params.Meta
	if meta[sdk.MetaKeyProtocolVersion] == nil {
		return nil
	}
	if string(meta[sdk.MetaKeyProtocolVersion]) != `"2026-07-28"` || meta[sdk.MetaKeyClientInfo] == nil || meta[sdk.MetaKeyClientCapabilities] == nil {
		t.Errorf("_meta %s lacks part of the protocol version, client info and capabilities", meta)
	}
	return meta
}

// Servers that predate server/discover answer it with an error, or not
// at all, or exit; either way the client falls back to initialize (with
// the server started again, if it exited).
func TestServersOfOlderRevisions(t *testing.T) {
	opts := quick
	opts.DiscoverTimeout = 100 * time.Millisecond
	t.Run("error", func(t *testing.T) {
		t.Parallel()
		hub := connect(t, opts, stdio("handmade"))
		if got := hub.Servers()[0].Protocol; got != "2025-06-18" {
			t.Errorf("protocol = %q, want 2025-06-18", got)
		}
	})
	t.Run("silence", func(t *testing.T) {
		t.Parallel()
		hub := connect(t, opts, stdio("silent"))
		if got := hub.Servers()[0].Protocol; got != "2025-06-18" {
			t.Errorf("protocol = %q, want 2025-06-18", got)
		}
		if out, err, _ := call(t, find(t, hub, "second"), `{}`); err != nil || out != "second got {}" {
			t.Errorf("second = %q, %v", out, err)
		}
	})
	t.Run("exit", func(t *testing.T) {
		t.Parallel()
		hub := connect(t, opts, stdio("fragile"))
		if got := hub.Servers()[0].Protocol; got != "2025-06-18" {
			t.Errorf("protocol = %q, want 2025-06-18", got)
		}
		if out, err, _ := call(t, find(t, hub, "second"), `{}`); err != nil || out != "second got {}" {
			t.Errorf("second = %q, %v", out, err)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		// As servers built on the TypeScript SDK before 2026-07-28 do: a
		// request without a session that is not initialize is refused.
		old := newTestServerAt("old", "2025-06-18")
		sessions := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return old }, nil)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.Header.Get("Mcp-Session-Id") == "" && !strings.Contains(string(body), `"method":"initialize"`) {
				http.Error(w, "Bad Request: Server not initialized", http.StatusBadRequest)
				return
			}
			sessions.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		hub := connect(t, opts, mcp.ServerSpec{Name: "old", URL: srv.URL})
		if got := hub.Servers()[0].Protocol; got != "2025-06-18" {
			t.Errorf("protocol = %q, want 2025-06-18", got)
		}
	})
}

// Over streamable HTTP, every request carries the headers its revision
// wants, the first (server/discover) included: MCP-Protocol-Version, and
// on 2026-07-28 Mcp-Method and, for tools/call, Mcp-Name, beside the
// _meta in its body.
func TestHTTPHeaders(t *testing.T) {
	for _, revision := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(revision, func(t *testing.T) {
			t.Parallel()
			h, err := mcpserver.Handler(growingServerAt(revision), mcp.TransportHTTP)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{h: h}
			srv := httptest.NewServer(rec)
			t.Cleanup(srv.Close)
			hub := connect(t, quick, mcp.ServerSpec{Name: "growing", URL: srv.URL})
			if out, err, _ := call(t, find(t, hub, "grow"), `{}`); err != nil || out != "grown" {
				t.Fatalf("grow = %q, %v", out, err)
			}
			hub.Close()

			seen := rec.requests()
			if len(seen) == 0 || seen[0].mcpMethod != "server/discover" || seen[0].version != "2026-07-28" {
				t.Fatalf("the first request was not server/discover with the 2026-07-28 headers: %+v", seen)
			}
			initialized := false
			for _, r := range seen {
				method := r.bodyMethod(t)
				switch {
				case method == "initialize":
					// Its body names the revision: the header is for the
					// requests after it, and would turn away a server of
					// an older revision.
					initialized = true
					if r.version != "" {
						t.Errorf("initialize carries MCP-Protocol-Version %q", r.version)
					}
				case method == "server/discover" || revision == "2026-07-28":
					if r.version != "2026-07-28" || r.mcpMethod != method {
						t.Errorf("%s %s: MCP-Protocol-Version %q, Mcp-Method %q", r.method, method, r.version, r.mcpMethod)
					}
					if method == "tools/call" && r.mcpName != "grow" {
						t.Errorf("tools/call: Mcp-Name %q, want grow", r.mcpName)
					}
					if !strings.HasPrefix(method, "notifications/") && requestMeta(t, r.body) == nil {
						t.Errorf("%s has no _meta protocol version: %s", method, r.body)
					}
				default:
					if r.version != revision {
						t.Errorf("%s %s: MCP-Protocol-Version %q, want %q", r.method, method, r.version, revision)
					}
				}
			}
			if initialized != (revision != "2026-07-28") {
				t.Errorf("initialize sent: %v, at %s", initialized, revision)
			}
		})
	}
}

type seenRequest struct {
	method, version, mcpMethod, mcpName string
	body                                []byte
}

// bodyMethod is the JSON-RPC method of a request, "" for a response or
// a request without a body.
func (r seenRequest) bodyMethod(t *testing.T) string {
	if len(r.body) == 0 {
		return ""
	}
	var msg struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(r.body, &msg); err != nil {
		t.Fatalf("%s %s", err, r.body)
	}
	return msg.Method
}

// recorder keeps the headers and body of every request to h.
type recorder struct {
	h    http.Handler
	mu   sync.Mutex
	seen []seenRequest
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec.mu.Lock()
	rec.seen = append(rec.seen, seenRequest{
		method: r.Method, version: r.Header.Get("Mcp-Protocol-Version"),
		mcpMethod: r.Header.Get("Mcp-Method"), mcpName: r.Header.Get("Mcp-Name"), body: body,
	})
	rec.mu.Unlock()
	rec.h.ServeHTTP(w, r)
}

func (rec *recorder) requests() []seenRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seenRequest(nil), rec.seen...)
}
