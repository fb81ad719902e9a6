package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/oauthtest"
)

// browser stands in for the user in a terminal sign-in: it approves (or
// denies) at the test authorization server and follows the redirect back
// to toolscope's loopback port, as a browser would. It counts the links
// it was shown.
type browser struct {
	t       *testing.T
	as      *oauthtest.Server
	approve bool
	// before, when set, runs before each approval.
	before func()

	mu    sync.Mutex
	shown int
}

func (b *browser) open(server, authURL string) {
	b.mu.Lock()
	b.shown++
	b.mu.Unlock()
	if b.before != nil {
		b.before()
	}
	back, err := b.as.Approve(authURL, b.approve)
	if err != nil {
		b.t.Errorf("approving the sign-in of %s: %v", server, err)
		return
	}
	resp, err := http.Get(back)
	if err != nil {
		b.t.Errorf("coming back to toolscope: %v", err)
		return
	}
	resp.Body.Close()
}

func oauthSpec(as *oauthtest.Server, cfg *mcp.OAuthConfig) []mcp.ServerSpec {
	return []mcp.ServerSpec{{Name: "remote", URL: as.URL + "/mcp", Transport: mcp.TransportHTTP, OAuth: cfg}}
}

func connectOAuth(t *testing.T, specs []mcp.ServerSpec, o mcp.OAuthOptions) (*mcp.Hub, error) {
	t.Helper()
	hub, err := mcp.Connect(t.Context(), specs, mcp.Options{OAuth: o})
	t.Cleanup(func() { hub.Close() })
	return hub, err
}

// TestOAuthSignInFromATerminal signs in as run and chat do: discovery from
// the 401, dynamic client registration, PKCE, the browser back on a
// loopback redirect. The tokens are kept, readable by the user alone,
// and the next start uses them without asking; the JSON-RPC messages a
// call records never hold them.
func TestOAuthSignInFromATerminal(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	dir := t.TempDir()
	b := &browser{t: t, as: as, approve: true}
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{DataDir: dir, Open: b.open})
	if err != nil {
		t.Fatal(err)
	}
	if b.shown != 1 || as.Count("register") != 1 || as.PKCEVerified() != 1 {
		t.Errorf("links shown %d, registrations %d, PKCE verified %d; want 1 each", b.shown, as.Count("register"), as.PKCEVerified())
	}
	out, err, wire := call(t, find(t, hub, "whoami"), `{}`)
	if err != nil || !strings.Contains(out, "user "+oauthtest.User) || !strings.Contains(out, "mcp") {
		t.Fatalf("whoami = %q, %v", out, err)
	}
	recorded, _ := json.Marshal(wire)
	for _, tok := range as.Tokens() {
		if strings.Contains(string(recorded), tok) {
			t.Errorf("the call's recorded messages hold a token")
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "mcp-oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("kept sign-ins: %v; want one file", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode is %v; want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(files[0])); fi.Mode().Perm() != 0o700 {
		t.Errorf("the token folder's mode is %v; want 0700", fi.Mode().Perm())
	}
	hub.Close()

	again := &browser{t: t, as: as, approve: true}
	hub2, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{DataDir: dir, Open: again.open})
	if err != nil {
		t.Fatal(err)
	}
	if again.shown != 0 {
		t.Errorf("the next start asked to sign in again")
	}
	if _, err, _ := call(t, find(t, hub2, "whoami"), `{}`); err != nil {
		t.Fatal(err)
	}

	// Forgetting the sign-in makes the next start ask again.
	if ok, err := mcp.Forget(dir, "remote"); !ok || err != nil {
		t.Fatalf("Forget = %v, %v", ok, err)
	}
	if ok, _ := mcp.Forget(dir, "remote"); ok {
		t.Error("Forget found a sign-in twice")
	}
}

// TestOAuthRefresh: an access token that has expired is refreshed with
// the refresh token, without the user, and the rotated refresh token is
// what is kept.
func TestOAuthRefresh(t *testing.T) {
	t.Parallel()
	// Shorter than oauth2's ten-second margin: every use refreshes.
	as := oauthtest.New(t, oauthtest.Options{TokenLifetime: 5 * time.Second})
	dir := t.TempDir()
	b := &browser{t: t, as: as, approve: true}
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{DataDir: dir, Open: b.open})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "mcp-oauth", "remote-"+keptSuffix(t, dir)))
	if _, err, _ := call(t, find(t, hub, "whoami"), `{}`); err != nil {
		t.Fatal(err)
	}
	if as.Count("refresh_token") == 0 || b.shown != 1 {
		t.Errorf("refreshes %d, links shown %d; want refreshes and one link", as.Count("refresh_token"), b.shown)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "mcp-oauth", "remote-"+keptSuffix(t, dir)))
	if string(before) == string(after) {
		t.Error("the kept sign-in still holds the token before the refresh")
	}
}

// TestOAuthRefreshNotKept: a refreshed token that cannot be written down
// still works, and the server's info says it was not kept. The refresh
// runs on the SDK's goroutines while the page reads the info.
func TestOAuthRefreshNotKept(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{TokenLifetime: 5 * time.Second})
	dir := t.TempDir()
	b := &browser{t: t, as: as, approve: true}
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{DataDir: dir, Open: b.open})
	if err != nil {
		t.Fatal(err)
	}
	// A file where the folder was: no one, root included, can save there.
	// The first listing of the server's resources and prompts refreshes
	// the token too, and saves it: it ends first.
	if err := hub.WaitCatalog(t.Context()); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "mcp-oauth")
	if err := os.RemoveAll(kept); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	reading := make(chan struct{})
	go func() {
		defer close(reading)
		for {
			select {
			case <-stop:
				return
			default:
				_ = hub.Servers()
			}
		}
	}()
	_, err, _ = call(t, find(t, hub, "whoami"), `{}`)
	close(stop)
	<-reading
	if err != nil {
		t.Fatal(err)
	}
	if s := hub.Servers()[0]; !strings.Contains(s.SignInError, "could not be kept") {
		t.Errorf("sign_in_error = %q; want that the tokens were not kept", s.SignInError)
	}
}

func keptSuffix(t *testing.T, dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "mcp-oauth", "remote-*.json"))
	if len(files) != 1 {
		t.Fatalf("kept sign-ins: %v", files)
	}
	return strings.TrimPrefix(filepath.Base(files[0]), "remote-")
}

// TestOAuthStepUp: a call the token's scopes do not cover gets 403
// insufficient_scope; toolscope asks for the scopes named, keeping the
// ones it had, and the call goes through.
func TestOAuthStepUp(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	b := &browser{t: t, as: as, approve: true}
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{Open: b.open})
	if err != nil {
		t.Fatal(err)
	}
	out, err, _ := call(t, find(t, hub, "admin_report"), `{}`)
	if err != nil || out != "all systems nominal" {
		t.Fatalf("admin_report = %q, %v", out, err)
	}
	if b.shown != 2 {
		t.Errorf("links shown %d; want 2, the second for the step-up", b.shown)
	}
	out, _, _ = call(t, find(t, hub, "whoami"), `{}`)
	if !strings.Contains(out, "mcp") || !strings.Contains(out, "admin") {
		t.Errorf("whoami after the step-up = %q; want both scopes", out)
	}
}

// TestOAuthOneSignInAtATime: a token revoked while calls are in flight
// has them all meet a 401; one sign-in, one link, answers them all.
func TestOAuthOneSignInAtATime(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	b := &browser{t: t, as: as, approve: true}
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{Open: b.open})
	if err != nil {
		t.Fatal(err)
	}
	whoami := find(t, hub, "whoami")
	const calls = 3
	as.Revoke()
	// The browser approves only once every call has met its 401, so
	// that all of them ask while the sign-in is under way.
	b.before = func() {
		for as.Count("rejected") < calls {
			select {
			case <-t.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			if out, err, _ := call(t, whoami, `{}`); err != nil || !strings.Contains(out, "user "+oauthtest.User) {
				t.Errorf("whoami after the revocation = %q, %v", out, err)
			}
		})
	}
	wg.Wait()
	if b.shown != 2 {
		t.Errorf("links shown %d; want 2, one at connecting and one after the revocation", b.shown)
	}
}

// TestOAuthClientCredentials signs toolscope in with a client id and
// secret, no browser, presenting the secret as the authorization
// server's metadata allows.
func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			as := oauthtest.New(t, oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret", AuthMethods: []string{method}})
			cfg := &mcp.OAuthConfig{Grant: mcp.GrantClientCredentials, ClientID: "ci", ClientSecret: "s3cret"}
			hub, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out, err, _ := call(t, find(t, hub, "whoami"), `{}`)
			if err != nil || !strings.HasPrefix(out, "user ci") {
				t.Fatalf("whoami = %q, %v", out, err)
			}
			for _, m := range as.Methods() {
				if m != method {
					t.Errorf("the token endpoint saw %s; want %s only", m, method)
				}
			}
		})
	}
	t.Run("issuer", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret"})
		dir := t.TempDir()
		cfg := &mcp.OAuthConfig{Grant: mcp.GrantClientCredentials, ClientID: "ci", ClientSecret: "s3cret"}
		before, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		before.Close()
		// The sign-in kept before "issuer" was set is not used: it was
		// never checked against it.
		cfg.Issuer = as.URL + "/"
		hub, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err, _ := call(t, find(t, hub, "whoami"), `{}`); err != nil {
			t.Fatal(err)
		}
		if n := as.Count("client_credentials"); n != 2 {
			t.Errorf("token requests %d; want 2, the second under the issuer", n)
		}
	})
	t.Run("another issuer", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret"})
		cfg := &mcp.OAuthConfig{Grant: mcp.GrantClientCredentials, ClientID: "ci", ClientSecret: "s3cret", Issuer: "https://auth.example.com"}
		_, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{})
		wantError(t, err, `MCP server "remote"`, `not the configured "issuer" https://auth.example.com`, `check "issuer"`)
		if n := as.Count("client_credentials"); n != 0 {
			t.Errorf("the token endpoint was asked %d times; want none", n)
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret"})
		cfg := &mcp.OAuthConfig{Grant: mcp.GrantClientCredentials, ClientID: "ci", ClientSecret: "wrong"}
		_, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{})
		wantError(t, err, `MCP server "remote"`, "token endpoint refused (invalid_client", `check "clientId" and "clientSecret"`)
	})
}

// TestOAuthFailuresSayWhatToDo: a denial, a refused registration and an
// authorization server that does not answer each end the connection with
// a message naming the server and the next step.
func TestOAuthFailuresSayWhatToDo(t *testing.T) {
	t.Parallel()
	t.Run("denied", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{})
		b := &browser{t: t, as: as, approve: false}
		hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{Open: b.open})
		wantError(t, err, `MCP server "remote"`, "access was denied", "sign in again and approve")
		if s := hub.Servers()[0]; s.State != mcp.StateFailed {
			t.Errorf("state %s; want failed", s.State)
		}
		// The SDK's initialize after the failed server/discover gets the
		// same answer, not a second link.
		if b.shown != 1 {
			t.Errorf("links shown %d; want 1", b.shown)
		}
	})
	t.Run("another issuer", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{ClientID: "ci", ClientSecret: "s3cret"})
		b := &browser{t: t, as: as, approve: true}
		cfg := &mcp.OAuthConfig{ClientID: "ci", ClientSecret: "s3cret", Issuer: "https://auth.example.com"}
		_, err := connectOAuth(t, oauthSpec(as, cfg), mcp.OAuthOptions{Open: b.open})
		wantError(t, err, `MCP server "remote"`, `its authorization server is "`+as.URL+`", not the configured "issuer"`, `check "issuer"`)
		if b.shown != 0 || as.Count("authorization_code") != 0 {
			t.Errorf("links shown %d, code exchanges %d; want none", b.shown, as.Count("authorization_code"))
		}
	})
	t.Run("registration refused", func(t *testing.T) {
		t.Parallel()
		as := oauthtest.New(t, oauthtest.Options{RefuseRegistration: true})
		b := &browser{t: t, as: as, approve: true}
		_, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{Open: b.open})
		wantError(t, err, `MCP server "remote"`, "refused to register toolscope", `"clientId"`)
		if b.shown != 0 || as.Count("register") != 1 {
			t.Errorf("links shown %d, registrations tried %d; want 0 and 1", b.shown, as.Count("register"))
		}
	})
	t.Run("authorization server unreachable", func(t *testing.T) {
		t.Parallel()
		dead := "http://" + nettest.ClosedAddress(t)
		var rs *httptest.Server
		rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/prm" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"resource": %q, "authorization_servers": [%q]}`, rs.URL+"/mcp", dead)
				return
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, rs.URL+"/prm"))
			w.WriteHeader(http.StatusUnauthorized)
		}))
		t.Cleanup(rs.Close)
		b := &browser{t: t}
		spec := []mcp.ServerSpec{{Name: "remote", URL: rs.URL + "/mcp"}}
		_, err := connectOAuth(t, spec, mcp.OAuthOptions{Open: b.open})
		wantError(t, err, `MCP server "remote"`, "cannot reach its authorization server", "check the network")
	})
}

// TestOAuthSignInFromThePage signs in as toolscope serve does: the server
// waits for the user, the page's Authorize starts the sign-in, and the
// browser comes back to the callback, which the state alone admits.
func TestOAuthSignInFromThePage(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	hub, err := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{})
	var signIn *mcp.SignInError
	if !errors.As(err, &signIn) {
		t.Fatalf("Connect: %v; want a SignInError", err)
	}
	s := hub.Servers()[0]
	if s.State != mcp.StateSignIn || s.SignIn != "needed" || !strings.Contains(s.Error, "click Authorize") {
		t.Fatalf("server before the sign-in: %+v", s)
	}
	changed := make(chan struct{}, 10)
	hub.OnToolsChanged(func() { changed <- struct{}{} })

	authURL, err := hub.SignIn(t.Context(), "remote", "http://127.0.0.1:8000"+mcp.CallbackPath)
	if err != nil {
		t.Fatal(err)
	}
	if s := hub.Servers()[0]; s.SignIn != "waiting" {
		t.Errorf("sign_in while the browser is out: %q; want waiting", s.SignIn)
	}
	back, err := as.Approve(authURL, true)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	q := u.Query()

	forged := url.Values{"code": {q.Get("code")}, "state": {"not-the-state"}}
	if _, err := hub.Callback(forged); !errors.Is(err, mcp.ErrUnknownState) {
		t.Errorf("a callback with another state: %v; want ErrUnknownState", err)
	}
	server, err := hub.Callback(q)
	if err != nil || server != "remote" {
		t.Fatalf("Callback = %q, %v", server, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for hub.Servers()[0].State != mcp.StateReady {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the server did not connect after the sign-in: %+v", hub.Servers()[0])
		}
	}
	if s := hub.Servers()[0]; s.SignIn != "" || s.SignInError != "" {
		t.Errorf("after the sign-in: %+v", s)
	}
	if _, err, _ := call(t, find(t, hub, "whoami"), `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Callback(q); !errors.Is(err, mcp.ErrUnknownState) {
		t.Errorf("the same callback again: %v; want ErrUnknownState", err)
	}
}

// TestOAuthCloseEndsThePageSignIn: closing the Hub ends a page sign-in
// under way and waits for it, so nothing of it outlives Close: its
// callback is refused, and the Hub takes no new sign-in.
func TestOAuthCloseEndsThePageSignIn(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	hub, _ := connectOAuth(t, oauthSpec(as, nil), mcp.OAuthOptions{})
	authURL, err := hub.SignIn(t.Context(), "remote", "http://127.0.0.1:8000"+mcp.CallbackPath)
	if err != nil {
		t.Fatal(err)
	}
	back, err := as.Approve(authURL, true)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	hub.Close()
	if s := hub.Servers()[0]; s.SignIn == "waiting" || s.State == mcp.StateReady {
		t.Errorf("after Close: %+v; want the sign-in ended, unconnected", s)
	}
	if _, err := hub.Callback(u.Query()); !errors.Is(err, mcp.ErrUnknownState) {
		t.Errorf("the callback after Close: %v; want ErrUnknownState", err)
	}
	if _, err := hub.SignIn(t.Context(), "remote", "http://127.0.0.1:8000"+mcp.CallbackPath); err == nil {
		t.Error("SignIn after Close started a sign-in")
	}
}

// TestOAuthCallbackPage: the page the browser comes back to claims no
// more than it knows: the token exchange runs after it is written.
func TestOAuthCallbackPage(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	mcp.WriteCallbackPage(w, "remote", nil)
	if body := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(body, "Authorization received; toolscope is connecting to the MCP server &#34;remote&#34;") || strings.Contains(body, "Signed in") {
		t.Errorf("callback page: %d %s", w.Code, body)
	}
	w = httptest.NewRecorder()
	mcp.WriteCallbackPage(w, "", mcp.ErrUnknownState)
	if body := w.Body.String(); w.Code != http.StatusBadRequest || !strings.Contains(body, "Not signed in") || !strings.Contains(body, "state mismatch") {
		t.Errorf("callback page for a refused callback: %d %s", w.Code, body)
	}
}

// TestOAuthConfig reads the "oauth" object of an MCP config, and refuses
// one that cannot work with a message saying what to fix.
func TestOAuthConfig(t *testing.T) {
	t.Setenv("TEST_MCP_SECRET", "from-env")
	dir := t.TempDir()
	write := func(server string) string {
		p := filepath.Join(dir, "mcp.json")
		if err := os.WriteFile(p, []byte(`{"mcpServers": {"remote": `+server+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	specs, err := mcp.LoadConfig(write(`{"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials", "clientId": "ci", "clientSecret": "${TEST_MCP_SECRET}", "scopes": ["read"], "issuer": "https://auth.example.com"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o := specs[0].OAuth; o == nil || o.ClientSecret != "from-env" || o.Grant != mcp.GrantClientCredentials || o.Scopes[0] != "read" || o.Issuer != "https://auth.example.com" {
		t.Errorf("oauth = %+v", specs[0].OAuth)
	}
	for server, want := range map[string]string{
		`{"url": "https://example.com/mcp", "oauth": {"client_id": "x"}}`:                                     `unknown field "client_id"`,
		`{"url": "https://example.com/mcp", "oauth": {"grant": "password"}}`:                                  `unknown "grant" "password"`,
		`{"url": "https://example.com/mcp", "oauth": {"grant": "client_credentials", "clientId": "x"}}`:       `needs "clientId" and "clientSecret"`,
		`{"url": "https://example.com/mcp", "oauth": {"clientSecret": "${NO_SUCH_VARIABLE_SET}"}}`:            "$NO_SUCH_VARIABLE_SET is not set",
		`{"url": "https://example.com/mcp", "oauth": {"clientMetadataUrl": "http://example.com/c.json"}}`:     `must be an https URL with a path`,
		`{"type": "sse", "url": "https://example.com/sse", "oauth": {}}`:                                      `streamable HTTP servers only`,
		`{"command": "some-server", "oauth": {}}`:                                                             `a stdio server takes its credentials from its "env"`,
		`{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}, "oauth": {}}`:           `give one of them`,
		`{"url": "https://example.com/mcp", "oauth": {"scopes": ["read write"]}}`:                             `a scope is one word`,
		`{"url": "https://example.com/mcp", "oauth": {"issuer": "https://auth.example.com"}}`:                 `give its "clientId" too`,
		`{"url": "https://example.com/mcp", "oauth": {"clientId": "x", "issuer": "http://auth.example.com"}}`: `"issuer" must be the authorization server's https URL`,
	} {
		_, err := mcp.LoadConfig(write(server))
		wantError(t, err, `server "remote"`, want)
	}
}
