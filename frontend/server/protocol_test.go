package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// raw sends a request as written and reads the answer, for requests that
// net/http would not send.
func raw(t *testing.T, ts *testServer, request string) (*http.Response, map[string]any) {
	t.Helper()
	addr := strings.TrimPrefix(ts.url, "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(strings.ReplaceAll(request, "HOST", addr))); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp, decode(t, resp.Body)
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	ts := start(t, setup{})
	check := func(what string, h http.Header) {
		t.Helper()
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("%s: Content-Security-Policy = %q", what, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: X-Content-Type-Options %q, Referrer-Policy %q", what, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
	}
	for _, path := range []string{"/", "/static/app.js", "/api/health", "/nowhere"} {
		resp, err := http.Get(ts.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		check(path, resp.Header)
	}
	resp, _ := raw(t, ts, "POST /api/runs HTTP/1.1\r\nHost: HOST\r\nContent-Length: x\r\n\r\n")
	check("a malformed request", resp.Header)
}

func TestProtocolErrorsAreJSON(t *testing.T) {
	ts := start(t, setup{})
	for name, request := range map[string]string{
		"bad chunk":          "POST /api/runs HTTP/1.1\r\nHost: HOST\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"header too large":   "GET / HTTP/1.1\r\nHost: HOST\r\nCookie: " + strings.Repeat("a", 20<<10) + "\r\n\r\n",
		"bad content length": "POST /api/runs HTTP/1.1\r\nHost: HOST\r\nContent-Length: x\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			resp, v := raw(t, ts, request)
			if resp.StatusCode < 400 || v["error"] == nil {
				t.Fatalf("got %d %v, want an error as JSON", resp.StatusCode, v)
			}
		})
	}
	// Browsers send every cookie set for localhost, whatever port set it.
	resp, v := raw(t, ts, "GET /api/health HTTP/1.1\r\nHost: HOST\r\nCookie: "+strings.Repeat("a", 10<<10)+"\r\n\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("10 KiB of cookies: %d %v", resp.StatusCode, v)
	}
}

func TestWrongMethodIs405(t *testing.T) {
	ts := start(t, setup{})
	for path, allow := range map[string]string{
		"/api/runs":            "GET, HEAD, POST",
		"/api/health":          "GET, HEAD",
		"/api/runs/r-x/cancel": "POST",
	} {
		req, _ := http.NewRequest(http.MethodDelete, ts.url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		v := decode(t, resp.Body)
		resp.Body.Close()
		got := strings.Split(resp.Header.Get("Allow"), ", ")
		slices.Sort(got)
		if resp.StatusCode != http.StatusMethodNotAllowed || strings.Join(got, ", ") != allow || v["error"] == nil {
			t.Errorf("DELETE %s = %d, Allow %q, %v; want 405, Allow %q and a JSON error", path, resp.StatusCode, resp.Header.Get("Allow"), v, allow)
		}
	}
}

func TestRunRequestsAreStrict(t *testing.T) {
	ts := start(t, setup{})
	post := func(contentType, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(ts.url+"/api/runs", contentType, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode, decode(t, resp.Body)
	}
	for _, c := range []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"a form", "application/x-www-form-urlencoded", `{"message": "hi"}`, 415, "Content-Type: application/json"},
		{"plain text", "text/plain", `{"message": "hi"}`, 415, "Content-Type: application/json"},
		{"JSON with a charset", "application/json; charset=utf-8", `{"message": "hi"}`, 201, ""},
		{"a key in another case", "application/json", `{"Message": "hi"}`, 400, `field "Message" is spelled "message"`},
		{"a huge delay", "application/json", `{"message": "hi", "tool_delay_ms": 9223372036855}`, 400, `"tool_delay_ms" 9223372036855 must be from 0 to 60000`},
		{"an unknown model", "application/json", `{"message": "hi", "model": "gpt-4"}`, 400, `"model" "gpt-4" is not served here: use toolscope-demo`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, v := post(c.contentType, c.body)
			if status != c.status || !strings.Contains(fmt.Sprint(v["error"]), c.want) {
				t.Fatalf("got %d %v, want %d and an error saying %q", status, v, c.status, c.want)
			}
		})
	}
	if _, v := post("application/json", `{"message": "hi", "model": "gpt-4"}`); fmt.Sprint(v["models"]) != "[toolscope-demo]" {
		t.Errorf("an unknown model's error lists %v, want the models served", v["models"])
	}
}

func TestFinishedRuns(t *testing.T) {
	ts := start(t, setup{})
	id, _ := ts.startRun(t, `{"message": "hello"}`)
	n := len(ts.events(t, id, 0))
	if status, v := ts.get(t, fmt.Sprintf("/api/runs/%s/events?last_event_id=%d", id, n+1)); status != http.StatusBadRequest || v["error"] == nil {
		t.Errorf("Last-Event-ID past the end: %d %v, want 400", status, v)
	}
	if events := ts.events(t, id, n); len(events) != 0 {
		t.Errorf("resuming after the last event: %d events, want none", len(events))
	}
	if status, v := ts.post(t, "/api/runs/"+id+"/cancel", ""); status != http.StatusOK || v["cancelled"] != false {
		t.Errorf("cancelling a finished run: %d %v, want 200 and cancelled: false", status, v)
	}
}

func TestLiveRunsPastTheCapAre429(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}, config: func(c *server.Config) {
		c.Hub = runs.NewHub(10, runs.Limits{MaxLive: 1})
	}})
	ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	defer g.Release()
	if status, v := ts.post(t, "/api/runs", `{"message": "hello"}`); status != http.StatusTooManyRequests || v["error"] == nil {
		t.Fatalf("a second live run: %d %v, want 429 with an error", status, v)
	}
}
