package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/oauthtest"
)

// TestSignInKeepsTheServersName signs an MCP server in through the page's
// routes while the same connection goes on to other requests, as a
// browser's does. The server's name comes from the request's path, in a
// buffer Fiber reuses unless the app is Immutable: the sign-in outlives
// the request, and the server came back connected under whatever the
// next request wrote there.
func TestSignInKeepsTheServersName(t *testing.T) {
	as := oauthtest.New(t, oauthtest.Options{})
	ts := start(t, setup{
		settings: engine.Settings{MCP: []mcp.ServerSpec{{Name: "remote", URL: as.URL + "/mcp", Transport: mcp.TransportHTTP}}},
		options:  []engine.Option{engine.WithMCPOAuth(mcp.OAuthOptions{DataDir: t.TempDir()})},
	})
	client := &http.Client{} // one keep-alive connection, as a tab's
	post := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Post(ts.url+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := post("/api/mcp/servers/remote/authorize")
	if status != http.StatusOK {
		t.Fatalf("authorize = %d %s", status, body)
	}
	var authorize struct{ URL string }
	if err := json.Unmarshal([]byte(body), &authorize); err != nil {
		t.Fatal(err)
	}
	// The same connection, a path of the same length: Fiber writes it
	// where the first request's was.
	if status, body := post("/api/mcp/servers/semote/authorize"); status != http.StatusConflict {
		t.Fatalf("authorizing a server toolscope does not have = %d %s; want 409", status, body)
	}
	back, err := as.Approve(authorize.URL, true)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get(back)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "MCP server &#34;remote&#34;") {
		t.Errorf("the callback page says %s; want it to name the server remote", page)
	}
	// The sign-in connects the server after the callback's answer.
	for giveUp := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(giveUp) {
			t.Fatal("the server did not become ready after its sign-in")
		}
		_, v := ts.get(t, "/api/mcp")
		servers := v["servers"].([]any)
		s := servers[0].(map[string]any)
		if s["name"] != "remote" {
			t.Fatalf("GET /api/mcp names the server %q after its sign-in; want remote", s["name"])
		}
		if s["state"] == "ready" {
			break
		}
		if s["state"] == "failed" {
			t.Fatalf("the server failed after its sign-in: %v", s["error"])
		}
		// The page follows the sign-in while it says waiting, and gives
		// up on a server neither waiting nor ready.
		if s["sign_in"] != "waiting" {
			t.Fatalf("GET /api/mcp says %v, sign_in %v, after the approval; want waiting until the server is ready", s["state"], s["sign_in"])
		}
	}
	_, v := ts.get(t, "/api/mcp/resources")
	if got := v["servers"].([]any)[0].(map[string]any)["server"]; got != "remote" {
		t.Errorf("GET /api/mcp/resources names the server %q; want remote", got)
	}
}
