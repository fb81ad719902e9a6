package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/server"
)

// Tokens of a server that listens beyond loopback. Tests cannot bind a
// non-loopback address, so they set what cmd derives from one.
var tokens = server.Tokens{Operator: "OPERATOR-SECRET", Viewer: "VIEWER-SECRET"}

func exposed(t *testing.T, access server.Access) *testServer {
	t.Helper()
	return start(t, setup{config: func(c *server.Config) { c.Access = access }})
}

// call sends a request with the headers given (a "Host" among them sets
// the Host) and returns its answer, read whole.
func (ts *testServer) call(t *testing.T, method, path, body string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Host = headers["Host"]
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// wantJSONError checks that an answer is a JSON error with status.
func wantJSONError(t *testing.T, what string, resp *http.Response, body string, status int, says string) {
	t.Helper()
	if resp.StatusCode != status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		!strings.Contains(body, `"error":`) || !strings.Contains(body, says) {
		t.Errorf("%s: %d %s %s; want %d and a JSON error saying %q", what, resp.StatusCode, resp.Header.Get("Content-Type"), body, status, says)
	}
}

func TestTokenIsRequiredWhenExposed(t *testing.T) {
	ts := exposed(t, server.Access{Tokens: tokens})
	resp, body := ts.call(t, "GET", "/api/health", "", nil)
	wantJSONError(t, "no token", resp, body, http.StatusUnauthorized, "a valid token is needed")
	if resp.Header.Get("WWW-Authenticate") == "" {
		t.Error("a 401 without WWW-Authenticate")
	}
	for name, h := range map[string]map[string]string{
		"wrong bearer":   bearer("VIEWER-SECRET-"),
		"wrong cookie":   {"Cookie": "toolscope_operator=OPERATOR"},
		"other's cookie": {"Cookie": "toolscope_viewer=" + tokens.Operator},
		"another scheme": {"Authorization": "Basic T1BFUkFUT1ItU0VDUkVU"},
		"another case":   bearer("viewer-secret"),
	} {
		resp, body := ts.call(t, "POST", "/api/runs", `{"message": "hello"}`, h)
		wantJSONError(t, name, resp, body, http.StatusUnauthorized, "")
	}
	if resp, body := ts.call(t, "GET", "/api/runs/latest?token=nope", "", nil); resp.StatusCode != 401 || resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("a wrong ?token= got %d %s and cookie %q", resp.StatusCode, body, resp.Header.Get("Set-Cookie"))
	}

	// The operator may do everything, the event stream included.
	resp, body = ts.call(t, "POST", "/api/runs", `{"message": "Send an email to john@example.com about the launch"}`, bearer(tokens.Operator))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("operator's POST /api/runs = %d %s", resp.StatusCode, body)
	}
	var started struct{ ID string }
	json.Unmarshal([]byte(body), &started)
	id := started.ID
	if resp, body := ts.call(t, "GET", "/api/runs/"+id+"/events", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the event stream without a token: %d %s", resp.StatusCode, body)
	}
	if events := ts.stream(t, "/api/runs/"+id+"/events", bearer(tokens.Operator)); events[len(events)-1].event.Type != agent.RunFinished {
		t.Errorf("the operator's stream ended with %+v", events[len(events)-1])
	}
	for _, path := range []string{"/api/mcp", "/api/models", "/api/tools", "/api/share/qr.png"} {
		if resp, body := ts.call(t, "GET", path, "", bearer(tokens.Operator)); resp.StatusCode != http.StatusOK {
			t.Errorf("operator's GET %s = %d %s", path, resp.StatusCode, body)
		}
	}
	if resp, body := ts.call(t, "POST", "/api/runs/"+id+"/cancel", "", bearer(tokens.Operator)); resp.StatusCode >= 300 {
		t.Errorf("operator's cancel = %d %s", resp.StatusCode, body)
	}
}

func TestViewerOnlyWatches(t *testing.T) {
	ts := exposed(t, server.Access{Tokens: tokens})
	if resp, body := ts.call(t, "GET", "/api/runs/latest", "", bearer(tokens.Viewer)); resp.StatusCode != http.StatusNoContent {
		t.Errorf("latest run before any = %d %s, want 204", resp.StatusCode, body)
	}
	resp, body := ts.call(t, "POST", "/api/runs", `{"message": "hello"}`, bearer(tokens.Viewer))
	wantJSONError(t, "viewer's POST /api/runs", resp, body, http.StatusForbidden, "can only watch")

	resp, body = ts.call(t, "POST", "/api/runs", `{"message": "Send an email to john@example.com about the launch"}`, bearer(tokens.Operator))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("operator's POST /api/runs = %d %s", resp.StatusCode, body)
	}
	resp, body = ts.call(t, "GET", "/api/runs/latest", "", bearer(tokens.Viewer))
	var latest struct{ ID, Message, Events string }
	if err := json.Unmarshal([]byte(body), &latest); err != nil || resp.StatusCode != 200 || !strings.Contains(body, latest.ID) || latest.Events != "/api/runs/"+latest.ID+"/events" {
		t.Fatalf("latest run = %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(latest.Message, "john@example.com") {
		t.Errorf("latest run's message = %q", latest.Message)
	}
	// The viewer follows it with ?token=, as a link or a script would.
	events := ts.stream(t, latest.Events+"?token="+tokens.Viewer, nil)
	if last := events[len(events)-1].event; last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Errorf("the viewer's stream ended with %+v", last)
	}
	for _, path := range []string{"/", "/static/app.js", "/api/runs/" + latest.ID, "/api/health", "/api/tools"} {
		if resp, body := ts.call(t, "GET", path, "", bearer(tokens.Viewer)); resp.StatusCode != http.StatusOK {
			t.Errorf("viewer's GET %s = %d %.200s", path, resp.StatusCode, body)
		}
	}
	for _, c := range []struct{ method, path string }{
		{"POST", "/api/runs/" + latest.ID + "/cancel"},
		{"GET", "/api/mcp"},
		{"GET", "/API/MCP"}, // the router ignores case; the viewer's list does not
		{"GET", "/api/mcp/"},
		{"GET", "/api/models"},
		{"GET", "/api/share/qr.png"},
		{"GET", "/api/runs/" + latest.ID + "/cancel"},
		{"DELETE", "/api/runs/" + latest.ID},
	} {
		resp, body := ts.call(t, c.method, c.path, "", bearer(tokens.Viewer))
		wantJSONError(t, "viewer's "+c.method+" "+c.path, resp, body, http.StatusForbidden, "can only watch")
	}
}

// The viewer link follows the page's runs, not an app's: a /v1 request
// carries the app's system prompt, and whatever secrets it holds.
func TestViewerSeesOnlyThePagesRuns(t *testing.T) {
	const secret = "the-app-secret-sk-123"
	for _, shared := range []bool{false, true} {
		ts := start(t, setup{config: func(c *server.Config) {
			c.Access, c.ShareAPIRuns = server.Access{Tokens: tokens}, shared
		}})
		page := ts.startRunAs(t, tokens.Operator, `{"message": "Send an email to john@example.com about the launch"}`)
		resp, body := ts.call(t, "POST", "/v1/chat/completions", `{"model": "toolscope-demo", "messages": [`+
			`{"role": "system", "content": "You are the billing bot. API key: `+secret+`"}, {"role": "user", "content": "hi"}]}`, bearer(tokens.Operator))
		chat := resp.Header.Get("X-Toolscope-Run")
		if resp.StatusCode != http.StatusOK || chat == "" {
			t.Fatalf("the operator's /v1 request = %d %s", resp.StatusCode, body)
		}
		resp, body = ts.call(t, "POST", "/api/query", `{"query": "Send an email to ann@example.com saying hello"}`, bearer(tokens.Operator))
		var q struct {
			RunID string `json:"run_id"`
		}
		if json.Unmarshal([]byte(body), &q); resp.StatusCode != http.StatusOK || q.RunID == "" {
			t.Fatalf("the operator's /api/query = %d %s", resp.StatusCode, body)
		}

		want := page
		if shared {
			want = q.RunID
		}
		if got := ts.latestID(t, tokens.Viewer); got != want {
			t.Errorf("shared %v: the viewer's latest run = %s, want %s (page %s, /v1 %s, /api/query %s)", shared, got, want, page, chat, q.RunID)
		}
		if got := ts.latestID(t, tokens.Operator); got != q.RunID {
			t.Errorf("the operator's latest run = %s, want the newest, %s", got, q.RunID)
		}
		for _, id := range []string{chat, q.RunID} {
			for _, path := range []string{"/api/runs/" + id, "/api/runs/" + id + "/events"} {
				resp, body := ts.call(t, "GET", path, "", bearer(tokens.Viewer))
				switch {
				case shared && resp.StatusCode != http.StatusOK:
					t.Errorf("shared: the viewer's GET %s = %d %.200s", path, resp.StatusCode, body)
				case !shared:
					wantJSONError(t, "the viewer's GET "+path, resp, body, http.StatusForbidden, "--share-api-runs")
					if strings.Contains(body, secret) {
						t.Errorf("the viewer's GET %s shows the app's secret", path)
					}
				}
				if resp, body := ts.call(t, "GET", path, "", bearer(tokens.Operator)); resp.StatusCode != http.StatusOK {
					t.Errorf("the operator's GET %s = %d %.200s", path, resp.StatusCode, body)
				}
			}
		}
	}
}

// A rerun or a follow-up of an app's run reads the app's prompt: it stays
// the app's, out of the viewer's sight, though the operator started it.
func TestRunsFromAnAPIRunStayTheAPIs(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) { c.Access = server.Access{Tokens: tokens} }})
	resp, body := ts.call(t, "POST", "/v1/chat/completions", `{"model": "toolscope-demo", "messages": [`+
		`{"role": "system", "content": "You are the billing bot."}, {"role": "user", "content": "hi"}]}`, bearer(tokens.Operator))
	app := resp.Header.Get("X-Toolscope-Run")
	if resp.StatusCode != http.StatusOK || app == "" {
		t.Fatalf("the operator's /v1 request = %d %s", resp.StatusCode, body)
	}
	page := ts.startRunAs(t, tokens.Operator, `{"message": "Send an email to john@example.com about the launch"}`)
	for what, path := range map[string]string{
		"rerun":     "/api/runs/" + app + "/rerun",
		"follow-up": "/api/runs",
	} {
		req := `{"round": 1}`
		if what == "follow-up" {
			req = `{"message": "and again", "after_run": "` + app + `"}`
		}
		id := ts.startRunAtAs(t, path, tokens.Operator, req)
		resp, body := ts.call(t, "GET", "/api/runs/"+id, "", bearer(tokens.Viewer))
		wantJSONError(t, "the viewer's GET of the "+what, resp, body, http.StatusForbidden, "--share-api-runs")
		if got := ts.latestID(t, tokens.Viewer); got != page {
			t.Errorf("after the %s, the viewer's latest run = %s, want the page's %s", what, got, page)
		}
	}
}

// startRunAs starts a run with token and returns its id.
func (ts *testServer) startRunAs(t *testing.T, token, body string) string {
	t.Helper()
	return ts.startRunAtAs(t, "/api/runs", token, body)
}

// startRunAtAs starts a run by POSTing body to path with token and
// returns its id.
func (ts *testServer) startRunAtAs(t *testing.T, path, token, body string) string {
	t.Helper()
	resp, out := ts.call(t, "POST", path, body, bearer(token))
	var started struct{ ID string }
	if json.Unmarshal([]byte(out), &started); resp.StatusCode != http.StatusCreated || started.ID == "" {
		t.Fatalf("POST %s = %d %s", path, resp.StatusCode, out)
	}
	return started.ID
}

// latestID is the id GET /api/runs/latest answers with token.
func (ts *testServer) latestID(t *testing.T, token string) string {
	t.Helper()
	resp, body := ts.call(t, "GET", "/api/runs/latest", "", bearer(token))
	var latest struct{ ID string }
	if json.Unmarshal([]byte(body), &latest); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/runs/latest = %d %s", resp.StatusCode, body)
	}
	return latest.ID
}

func TestTokenLinkSetsACookie(t *testing.T) {
	ts := exposed(t, server.Access{Tokens: tokens, ShareHosts: []string{"192.0.2.7:8000"}})
	html := map[string]string{"Accept": "text/html,application/xhtml+xml"}
	resp, page := ts.call(t, "GET", "/?token="+tokens.Operator, "", html)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /?token= = %d %s", resp.StatusCode, page)
	}
	cookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"toolscope_operator=" + tokens.Operator, "HttpOnly", "SameSite=Strict", "path=/"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", cookie, want)
		}
	}
	// The page's own requests carry only the cookie.
	withCookie := map[string]string{"Cookie": "toolscope_operator=" + tokens.Operator}
	if resp, body := ts.call(t, "POST", "/api/runs", `{"message": "hello"}`, withCookie); resp.StatusCode != http.StatusCreated {
		t.Errorf("POST with the cookie = %d %s", resp.StatusCode, body)
	}
	// The operator's page offers the viewer link, at an address the
	// class can reach, and never shows the operator's own token.
	viewerLink := "http://192.0.2.7:8000/?token=" + tokens.Viewer
	for _, want := range []string{"Share with the class", viewerLink, `src="/api/share/qr.png"`, `id="composer"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the operator's page lacks %s", want)
		}
	}
	if strings.Contains(page, tokens.Operator) {
		t.Error("the operator's page shows the operator's token")
	}
	resp, png := ts.call(t, "GET", "/api/share/qr.png", "", withCookie)
	want, _ := qrcode.Encode(viewerLink, qrcode.Medium, 320)
	if resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal([]byte(png), want) {
		t.Errorf("the QR code is not the viewer link's (%s, %d bytes)", resp.Header.Get("Content-Type"), len(png))
	}

	// Opening the viewer link in the same browser keeps the operator's
	// cookie, so the teacher's own page still works.
	both := map[string]string{"Cookie": "toolscope_viewer=" + tokens.Viewer + "; toolscope_operator=" + tokens.Operator}
	if resp, body := ts.call(t, "POST", "/api/runs", `{"message": "hello"}`, both); resp.StatusCode != http.StatusCreated {
		t.Errorf("POST with both cookies = %d %s", resp.StatusCode, body)
	}

	// The viewer link's page is read-only.
	resp, page = ts.call(t, "GET", "/?token="+tokens.Viewer, "", html)
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Set-Cookie"), "toolscope_viewer="+tokens.Viewer) {
		t.Fatalf("the viewer link = %d, cookie %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	if !strings.Contains(page, "<body data-viewer") || !strings.Contains(page, "read-only") {
		t.Error("the viewer's page does not say it is read-only")
	}
	for _, absent := range []string{`id="composer"`, `id="stop"`, `id="new-conversation"`, `id="settings"`, "Share with the class", tokens.Operator} {
		if strings.Contains(page, absent) {
			t.Errorf("the viewer's page has %s", absent)
		}
	}
}

func TestBrowserWithoutTokenGetsAPage(t *testing.T) {
	ts := exposed(t, server.Access{Tokens: tokens})
	resp, page := ts.call(t, "GET", "/", "", map[string]string{"Accept": "text/html"})
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(page, "needs its link") || !strings.Contains(page, "?token=") {
		t.Errorf("a browser without a token got %d %s:\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
}

func TestNoTokenOnLoopback(t *testing.T) {
	ts := start(t, setup{})
	if page := ts.page(t); strings.Contains(page, "Share with the class") || strings.Contains(page, "data-viewer") {
		t.Error("a toolscope that asks for no token offers a viewer link")
	}
	if status, v := ts.get(t, "/api/share/qr.png"); status != http.StatusNotFound || v["error"] == nil {
		t.Errorf("QR code without tokens = %d %v", status, v)
	}
}

func TestAllowedHostNames(t *testing.T) {
	ts := exposed(t, server.Access{AllowHosts: []string{"mylaptop.local"}})
	port := ts.url[strings.LastIndexByte(ts.url, ':')+1:]
	for host, status := range map[string]int{
		"mylaptop.local:" + port:  http.StatusOK,
		"MyLaptop.Local.:" + port: http.StatusOK,
		"mylaptop.local":          http.StatusOK,
		"other.local:" + port:     http.StatusForbidden,
		"mylaptop.local.evil.com": http.StatusForbidden,
	} {
		if resp, body := ts.call(t, "GET", "/api/health", "", map[string]string{"Host": host}); resp.StatusCode != status {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, status)
		}
	}
}

func TestUnknownHostNameGetsAPage(t *testing.T) {
	ts := start(t, setup{})
	u, _ := url.Parse(ts.url)
	host := "mylaptop.local:" + u.Port()
	resp, page := ts.call(t, "GET", "/?token=abc", "", map[string]string{"Host": host, "Accept": "text/html,*/*"})
	if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("a browser at %s got %d %s", host, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{`href="` + ts.url + `/?token=abc"`, "toolscope serve --allow-host mylaptop.local"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	resp, body := ts.call(t, "GET", "/api/health", "", map[string]string{"Host": host})
	wantJSONError(t, "a program at "+host, resp, body, http.StatusForbidden, "open it as "+ts.url)
}

// The unknown host's page links the address the request came in on,
// whatever the request target says: "GET @evil.com" must not make a link
// to evil.com.
func TestUnknownHostPageLinksOnlyTheBoundAddress(t *testing.T) {
	ts := start(t, setup{})
	addr := strings.TrimPrefix(ts.url, "http://")
	href := regexp.MustCompile(`<a href="([^"]*)"`)
	for _, target := range []string{"@evil.com", "@evil.com/x?token=abc", "//evil.com/", "/@evil.com", "http://evil.com/"} {
		c := dialFrom(t, "127.0.0.1", addr)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: mylaptop.local\r\nAccept: text/html\r\n\r\n", target)
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", target, err)
		}
		page, _ := io.ReadAll(resp.Body)
		m := href.FindSubmatch(page)
		if resp.StatusCode != http.StatusForbidden || m == nil {
			t.Errorf("GET %s: %d, link %q", target, resp.StatusCode, m)
			continue
		}
		link, err := url.Parse(html.UnescapeString(string(m[1])))
		if err != nil || link.Host != addr || link.User != nil {
			t.Errorf("GET %s: the page links %s, want a link to %s", target, m[1], addr)
		}
	}
}

func TestReachableAt(t *testing.T) {
	for _, c := range []struct {
		addr    *net.TCPAddr
		exposed bool
		hosts   string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}, false, ""},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8000}, false, ""},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 8000}, true, "192.0.2.7:8000"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::7"), Port: 80}, true, "[2001:db8::7]:80"},
	} {
		if got := server.Exposed(c.addr); got != c.exposed {
			t.Errorf("Exposed(%s) = %v", c.addr, got)
		}
		if got := strings.Join(server.ReachableAt(c.addr), " "); got != c.hosts {
			t.Errorf("ReachableAt(%s) = %q, want %q", c.addr, got, c.hosts)
		}
	}
	for _, host := range server.ReachableAt(&net.TCPAddr{IP: net.IPv4zero, Port: 8000}) {
		ip := net.ParseIP(strings.Trim(host[:strings.LastIndexByte(host, ':')], "[]"))
		if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() || !strings.HasSuffix(host, ":8000") {
			t.Errorf("0.0.0.0 is reachable at %s", host)
		}
	}
}

// stream reads an event stream to its end.
func (ts *testServer) stream(t *testing.T, path string, headers map[string]string) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.url+path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", path, resp.StatusCode)
	}
	return readEvents(t, resp)
}
