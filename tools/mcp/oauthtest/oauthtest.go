// Package oauthtest is an OAuth-protected MCP server for tests: a
// streamable HTTP MCP server (the resource server) and its OAuth 2.1
// authorization server, on one httptest server. The authorization server
// publishes its metadata, registers clients dynamically, shows a tiny
// approval form, checks PKCE (S256 only), issues short-lived access
// tokens with refresh tokens, and serves the client credentials grant.
// The person who approves is always User. The MCP server offers "whoami" to any token, and "admin_report" only
// to one with the "admin" scope: others get 403 insufficient_scope, to
// step up; and one resource, "profile".
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// User is the person every approval is from. The MCP server binds its
// sessions to the user, as the SDK's does, so a sign-in with another
// client (a step-up from a new loopback port) keeps the session.
const User = "ada"

// Options tune the authorization server.
type Options struct {
	// TokenLifetime is how long an access token works: 1 hour by default.
	TokenLifetime time.Duration
	// RefuseRegistration makes dynamic client registration fail.
	RefuseRegistration bool
	// ClientID and ClientSecret are a client registered beforehand, for
	// the client credentials grant (and the code flow).
	ClientID, ClientSecret string
	// AuthMethods are the token endpoint's client authentication methods
	// as the metadata lists them; by default client_secret_basic and none.
	AuthMethods []string
}

// Server is a running OAuth-protected MCP server.
type Server struct {
	URL string // the base URL; the MCP endpoint is URL + "/mcp"
	t   testing.TB
	o   Options

	mu       sync.Mutex
	clients  map[string]client
	codes    map[string]grant
	access   map[string]issued
	refresh  map[string]issued
	counts   map[string]int // token requests by grant type, registration requests as "register"
	methods  []string       // client authentication used at the token endpoint, in order
	verified int            // PKCE verifiers checked
}

type client struct {
	secret    string
	redirects []string
}

type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
}

type issued struct {
	user    string // who approved: User, or the client for client credentials
	client  string
	scopes  []string
	expires time.Time
}

// New starts the servers; they stop when the test ends.
func New(t testing.TB, o Options) *Server {
	if o.TokenLifetime <= 0 {
		o.TokenLifetime = time.Hour
	}
	if o.AuthMethods == nil {
		o.AuthMethods = []string{"client_secret_basic", "none"}
	}
	s := &Server{t: t, o: o, clients: map[string]client{}, codes: map[string]grant{}, access: map[string]issued{}, refresh: map[string]issued{}, counts: map[string]int{}}
	if o.ClientID != "" {
		s.clients[o.ClientID] = client{secret: o.ClientSecret}
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL

	mcp := sdk.NewServer(&sdk.Implementation{Name: "oauthtest", Version: "1"}, nil)
	sdk.AddTool(mcp, &sdk.Tool{Name: "whoami", Description: "Says which OAuth client called."}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		info := req.Extra.TokenInfo
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "user " + info.UserID + ", scopes " + strings.Join(info.Scopes, " ")}}}, nil, nil
	})
	sdk.AddTool(mcp, &sdk.Tool{Name: "admin_report", Description: "Needs the admin scope."}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "all systems nominal"}}}, nil, nil
	})
	// A resource, for a front end to list once signed in.
	mcp.AddResource(&sdk.Resource{URI: "oauthtest://profile", Name: "profile", MIMEType: "text/plain", Description: "The signed-in user."}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "user " + req.Extra.TokenInfo.UserID}}}, nil
	})
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcp }, nil)
	metadata := s.URL + "/.well-known/oauth-protected-resource/mcp"
	bearer := auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadata, Scopes: []string{"mcp"}})
	mux.Handle("/mcp", bearer(s.stepUp(handler, metadata)))
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL + "/mcp", "authorization_servers": []string{s.URL}, "scopes_supported": []string{"mcp"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
			"registration_endpoint": s.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"token_endpoint_auth_methods_supported": s.o.AuthMethods, "scopes_supported": []string{"mcp", "admin", "offline_access"},
		})
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorizePage)
	mux.HandleFunc("POST /authorize", s.decide)
	mux.HandleFunc("POST /token", s.token)
	return s
}

// verify is the resource server's check of a bearer token.
func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.access[token]
	if !ok || time.Now().After(is.expires) {
		s.counts["rejected"]++
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: is.user, Scopes: is.scopes, Expiration: is.expires}, nil
}

// stepUp answers a call of admin_report without the admin scope with 403
// insufficient_scope, as the MCP spec's step-up flow has a server do.
func (s *Server) stepUp(next http.Handler, metadata string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		info := auth.TokenInfoFromContext(r.Context())
		if msg.Method == "tools/call" && msg.Params.Name == "admin_report" && !slices.Contains(info.Scopes, "admin") {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="mcp admin", resource_metadata=%q`, metadata))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts["register"]++
	s.mu.Unlock()
	if s.o.RefuseRegistration {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "registration is closed"})
		return
	}
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	id := "client-" + rand.Text()[:8]
	c := client{redirects: meta.RedirectURIs}
	resp := map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"}
	if meta.AuthMethod != "none" {
		c.secret = rand.Text()
		resp["client_secret"], resp["token_endpoint_auth_method"] = c.secret, "client_secret_basic"
	}
	s.mu.Lock()
	s.clients[id] = c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, resp)
}

var approvalPage = template.Must(template.New("approve").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize toolscope</title></head>
<body><h1>Authorize {{.Client}}?</h1><p>It asks for: {{.Scope}}</p>
<form method="post" action="/authorize">
{{range $k, $v := .Params}}<input type="hidden" name="{{$k}}" value="{{$v}}">{{end}}
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form></body></html>
`))

// authorizePage checks the request as an authorization server must, and
// shows the approval form.
func (s *Server) authorizePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := s.checkAuthorize(q); err != "" {
		http.Error(w, err, http.StatusBadRequest)
		return
	}
	params := map[string]string{}
	for k := range q {
		params[k] = q.Get(k)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = approvalPage.Execute(w, map[string]any{"Client": q.Get("client_id"), "Scope": q.Get("scope"), "Params": params})
}

func (s *Server) checkAuthorize(q url.Values) string {
	s.mu.Lock()
	c, ok := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case !ok:
		return "unknown client_id"
	case q.Get("response_type") != "code":
		return "response_type must be code"
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		return "PKCE with S256 is required"
	case q.Get("state") == "":
		return "state is required"
	case q.Get("resource") != s.URL+"/mcp":
		return "resource must name the MCP server"
	case len(c.redirects) > 0 && !slices.Contains(c.redirects, q.Get("redirect_uri")):
		return "redirect_uri is not registered"
	}
	return ""
}

// decide answers the approval form: a code, or access_denied.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := r.PostForm
	if err := s.checkAuthorize(q); err != "" {
		http.Error(w, err, http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}}
	if q.Get("decision") == "approve" {
		code := rand.Text()
		s.mu.Lock()
		s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
		s.mu.Unlock()
		v.Set("code", code)
	} else {
		v.Set("error", "access_denied")
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// Approve does what a person does in the browser: it opens authURL and
// approves (or, with approve false, denies), and returns the redirect's
// URL with the code or the error, for the test to open.
func (s *Server) Approve(authURL string, approve bool) (string, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", err
	}
	form := u.Query()
	form.Set("decision", map[bool]string{true: "approve", false: "deny"}[approve])
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.PostForm(s.URL+"/authorize", form)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		body, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("the authorization server answered %s: %s", resp.Status, body)
	}
	return resp.Header.Get("Location"), nil
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	id, secret, method := f.Get("client_id"), f.Get("client_secret"), "none"
	if u, p, ok := r.BasicAuth(); ok {
		id, secret, method = u, p, "client_secret_basic"
	} else if secret != "" {
		method = "client_secret_post"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[f.Get("grant_type")]++
	s.methods = append(s.methods, method)
	c, ok := s.clients[id]
	if !ok || c.secret != secret || method != "none" && !slices.Contains(s.o.AuthMethods, method) {
		tokenError(w, "invalid_client", "unknown client, wrong secret, or an authentication method not offered")
		return
	}
	var scopes []string
	user := User
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || g.client != id || g.redirect != f.Get("redirect_uri"):
			tokenError(w, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			tokenError(w, "invalid_grant", "the PKCE code_verifier does not match the code_challenge")
			return
		}
		s.verified++
		scopes = g.scopes
	case "refresh_token":
		is, ok := s.refresh[f.Get("refresh_token")]
		if !ok || is.client != id {
			tokenError(w, "invalid_grant", "unknown refresh token")
			return
		}
		delete(s.refresh, f.Get("refresh_token")) // rotated
		scopes = is.scopes
	case "client_credentials":
		scopes, user = strings.Fields(f.Get("scope")), id
	default:
		tokenError(w, "unsupported_grant_type", f.Get("grant_type"))
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	expires := time.Now().Add(s.o.TokenLifetime)
	s.access[access] = issued{user: user, client: id, scopes: scopes, expires: expires}
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.o.TokenLifetime.Seconds()), "scope": strings.Join(scopes, " ")}
	if f.Get("grant_type") != "client_credentials" {
		s.refresh[refresh] = issued{user: user, client: id, scopes: scopes}
		resp["refresh_token"] = refresh
	}
	writeJSON(w, http.StatusOK, resp)
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Count is how many token requests of a grant type ("authorization_code",
// "refresh_token", "client_credentials") the server had, or registration requests,
// refused ones too, for "register", or bearer tokens the MCP server
// refused (unknown, revoked or expired) for "rejected".
func (s *Server) Count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[what]
}

// Methods are the client authentication methods used at the token
// endpoint, in order.
func (s *Server) Methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods)
}

// PKCEVerified is how many codes were exchanged with a verifier that
// matched their S256 challenge.
func (s *Server) PKCEVerified() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verified
}

// Tokens are the access tokens issued, for a test to look for in what
// must never hold them.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.access {
		out = append(out, t)
	}
	for t := range s.refresh {
		out = append(out, t)
	}
	return out
}

// Revoke withdraws every token, access and refresh, as an authorization
// server does when the user revokes toolscope's access: the next call
// needs a new sign-in.
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
	clear(s.refresh)
}

// Expire makes every access token stale, as time would.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, is := range s.access {
		is.expires = time.Now().Add(-time.Second)
		s.access[t] = is
	}
}
