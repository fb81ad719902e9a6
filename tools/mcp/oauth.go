package mcp

// Signing in to remote servers with OAuth 2.1, as the MCP authorization
// spec has a client do. A streamable HTTP server that answers 401 (or 403
// insufficient_scope) names its authorization server in protected
// resource metadata; toolscope reads that and the authorization server's
// metadata, registers itself (a client ID metadata document, a configured
// client, or dynamic client registration), and sends the user's browser
// to authorize, with PKCE. The SDK's auth.AuthorizationCodeHandler does
// those steps; this file decides where the authorization code comes back
// and when to ask the user:
//
//   - In a terminal (Options.OAuth.Open set: run, chat, tools), at once:
//     toolscope listens on a loopback redirect, has Open show the link,
//     and waits, the handshake's timeout held meanwhile.
//   - Behind the page (serve), not before the user asks: the server waits
//     in StateSignIn until a front end calls Hub.SignIn, whose redirect is
//     toolscope's own /oauth/callback, and front ends pass the callback's
//     query to Hub.Callback.
//
// The client credentials grant, for machine use, needs no person: the
// token endpoint is discovered the same way and asked directly.
//
// Tokens, and the client they were issued to, are kept per server in a
// file readable by the user alone (oauth_store.go). They travel in the
// Authorization header only, which the wiretap never records.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// CallbackPath is where an authorization server sends the browser back
// to toolscope with the authorization code, on the page's address and on
// a terminal's loopback redirect alike.
const CallbackPath = "/oauth/callback"

// OAuthOptions say where sign-ins are kept and how the user is asked.
type OAuthOptions struct {
	// DataDir is the folder under which each server's tokens are kept, in
	// mcp-oauth/ (0700, files 0600); "" keeps them in memory only.
	DataDir string
	// Open, when set, takes the user through a sign-in from a terminal:
	// it is given the server's name and the authorization URL to show and
	// open, while the Hub waits on a loopback redirect. When nil, a
	// server that needs a sign-in waits in StateSignIn for Hub.SignIn.
	Open func(server, authURL string)
	// Wait bounds a sign-in, from the link to the code: 5 minutes by
	// default.
	Wait time.Duration
}

// errSignInNeeded marks a connection or a call that waits for the user
// to sign in from the page.
var errSignInNeeded = errors.New("a sign-in is needed")

// SignInError says why signing in to a server failed and what to do.
type SignInError struct {
	Server  string
	Problem string
	Next    string
	Err     error
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("MCP server %q: %s; %s", e.Server, e.Problem, e.Next)
}

func (e *SignInError) Unwrap() error { return e.Err }

// oauthClient is the sign-in of one server. It outlives the server's
// connections: a page sign-in ends in a new connection that uses it.
type oauthClient struct {
	name, url string
	cfg       *OAuthConfig // never nil
	opts      OAuthOptions
	store     tokenStore
	http      *http.Client
	flows     *flows

	mu        sync.Mutex
	source    oauth2.TokenSource // nil until signed in
	kept      *signedIn
	challenge *challenge         // the 401 or 403 the user is to answer, from the page
	waiting   bool               // the authorization page is open, or the server connecting after it
	cancel    context.CancelFunc // ends the page's sign-in under way
	gen       int                // counts the page's sign-ins
	lastErr   error
	terminal  *terminalSignIn // the sign-in from a terminal under way
}

// challenge is a response that asked for a sign-in, kept to start the
// authorization from once the user asks.
type challenge struct {
	url    string
	status int
	header http.Header
}

func newOAuthClient(spec ServerSpec, name string, opts OAuthOptions, f *flows) (*oauthClient, error) {
	cfg := spec.OAuth
	if cfg == nil {
		cfg = &OAuthConfig{}
	}
	o := &oauthClient{
		name: name, url: spec.URL, cfg: cfg, opts: opts, store: newTokenStore(opts.DataDir), flows: f,
		// The servers are the user's to name, and often on a private
		// network (Docker Compose's): a transport of its own opts out of
		// the SDK's refusal to fetch metadata from private addresses.
		http: &http.Client{Transport: http.DefaultTransport, Timeout: 30 * time.Second},
	}
	kept, err := o.store.load(name, spec.URL)
	if err != nil {
		return o, err
	}
	// A sign-in from before "issuer" was configured, or for another one,
	// may refresh at a token endpoint the configured client does not
	// belong to: sign in anew.
	if kept != nil && (cfg.Issuer == "" || sameIssuer(kept.Issuer, cfg.Issuer)) {
		o.restore(kept)
	}
	return o, nil
}

// restore uses a kept sign-in: its token until it expires, then its
// refresh token (or, for client credentials, a new token).
func (o *oauthClient) restore(k *signedIn) {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, o.http)
	var base oauth2.TokenSource
	if k.Grant == GrantClientCredentials {
		base = oauth2.ReuseTokenSource(k.Token, o.credentials(k.TokenURL, k.AuthStyle, k.Scopes, k.Resource).TokenSource(ctx))
	} else {
		c := &oauth2.Config{ClientID: k.ClientID, ClientSecret: k.ClientSecret, Scopes: k.Scopes,
			Endpoint: oauth2.Endpoint{TokenURL: k.TokenURL, AuthStyle: k.AuthStyle}}
		base = c.TokenSource(ctx, k.Token)
	}
	o.mu.Lock()
	o.kept, o.source = k, &keptSource{o: o, base: base, last: k.Token.AccessToken}
	o.mu.Unlock()
}

// keep makes k the sign-in in force, with base for its tokens, and
// writes it down.
func (o *oauthClient) keep(k *signedIn, base oauth2.TokenSource) oauth2.TokenSource {
	src := &keptSource{o: o, base: base, last: k.Token.AccessToken}
	o.mu.Lock()
	o.kept, o.source = k, src
	o.mu.Unlock()
	o.save(k)
	return src
}

// save writes k down. It runs on the SDK's goroutines too (a refresh in
// keptSource.Token), so lastErr is set under o.mu.
func (o *oauthClient) save(k *signedIn) {
	if err := o.store.save(k); err != nil {
		// The sign-in works for this run; the next one asks again.
		o.mu.Lock()
		o.lastErr = fmt.Errorf("signed in, but the tokens could not be kept in %s (%v): the next start asks again", o.store.dir, err)
		o.mu.Unlock()
	}
}

// keptSource writes a refreshed token down, so that the next start uses
// the newest refresh token (authorization servers may rotate them).
type keptSource struct {
	o    *oauthClient
	base oauth2.TokenSource

	mu   sync.Mutex
	last string
}

func (s *keptSource) Token() (*oauth2.Token, error) {
	tok, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	changed := tok.AccessToken != s.last
	s.last = tok.AccessToken
	s.mu.Unlock()
	if changed {
		s.o.mu.Lock()
		k := *s.o.kept
		k.Token = tok
		s.o.kept = &k
		s.o.mu.Unlock()
		s.o.save(&k)
	}
	return tok, nil
}

func (o *oauthClient) tokenSource() oauth2.TokenSource {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.source == nil {
		return nil // an untyped nil: the SDK then sends no Authorization
	}
	return o.source
}

// connAuth is the SDK's OAuthHandler for one connection of a server.
type connAuth struct {
	o *oauthClient
	s *server
}

func (a connAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return a.o.tokenSource(), nil
}

func (a connAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := a.s.failedSignIn(); err != nil {
		drain(resp)
		return err
	}
	err := a.o.authorize(ctx, a.s, req, resp)
	a.s.signInFailed(err)
	return err
}

// signInFailed remembers a sign-in that failed while the server connects.
// The SDK sends server/discover first and, on any error that is not a
// version mismatch, sends initialize: without this a denied or broken
// sign-in would be run again in full for it, with a second link and a
// second wait.
func (s *server) signInFailed(err error) {
	var e *SignInError
	if !errors.As(err, &e) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == "" { // still connecting
		s.signInErr = e
	}
}

// failedSignIn is the sign-in that failed earlier in this connect, if any.
func (s *server) failedSignIn() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != "" || s.signInErr == nil {
		return nil
	}
	return s.signInErr
}

// authorize answers a 401 or 403 of the server's.
func (o *oauthClient) authorize(ctx context.Context, s *server, req *http.Request, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp && bearerParam(challenges, "error") != "insufficient_scope" ||
		!stepUp && o.unconfigured() && !o.advertised(ctx, req.URL, challenges) {
		// Not a question OAuth answers: a 403 for another reason, or a
		// 401 from a server configured for no OAuth that says nowhere
		// where its OAuth metadata is (one that wants a static token, as
		// toolscope's own bridge does). Returning nil has the SDK ask once
		// more and report the status as it would without OAuth.
		drain(resp)
		return nil
	}
	if o.cfg.grant() == GrantClientCredentials {
		defer drain(resp)
		return o.clientCredentials(ctx, req, resp, challenges)
	}
	if o.opts.Open == nil {
		return o.await(req, resp, challenges)
	}
	return o.signInOnce(ctx, s, req, resp)
}

// advertised reports whether a server that answered 401 says where its
// OAuth metadata is, as the MCP authorization spec has it: a Bearer
// challenge's resource_metadata, or protected-resource metadata at the
// well-known address of its endpoint or of its root.
func (o *oauthClient) advertised(ctx context.Context, endpoint *url.URL, challenges []oauthex.Challenge) bool {
	if !slices.ContainsFunc(challenges, func(c oauthex.Challenge) bool { return c.Scheme == "bearer" }) {
		return false
	}
	if bearerParam(challenges, "resource_metadata") != "" {
		return true
	}
	resource := *endpoint
	resource.RawQuery, resource.Fragment = "", ""
	root := resource
	root.Path = ""
	for _, at := range []struct{ metadata, resource url.URL }{
		{url.URL{Scheme: resource.Scheme, Host: resource.Host, Path: "/.well-known/oauth-protected-resource/" + strings.TrimLeft(resource.Path, "/")}, resource},
		{url.URL{Scheme: resource.Scheme, Host: resource.Host, Path: "/.well-known/oauth-protected-resource"}, root},
	} {
		if _, err := oauthex.GetProtectedResourceMetadata(ctx, at.metadata.String(), at.resource.String(), o.http); err == nil {
			return true
		}
	}
	return false
}

// terminalSignIn is a sign-in from a terminal under way; done is closed
// once err says how it went.
type terminalSignIn struct {
	done chan struct{}
	err  error
}

// signInOnce signs in from a terminal, one sign-in at a time: calls that
// meet a 401 (or 403) meanwhile, as concurrent tool calls do once a token
// is revoked, wait for its outcome rather than each open a loopback port
// and show a link. A call whose request went out with an older token
// than the one now in force is sent again with the new one (a nil error
// has the SDK do that); one that went out with none (the refresh token
// no longer works) signs in.
func (o *oauthClient) signInOnce(ctx context.Context, s *server, req *http.Request, resp *http.Response) error {
	sent := req.Header.Get("Authorization")
	o.mu.Lock()
	if sent != "" && o.kept != nil && sent != "Bearer "+o.kept.Token.AccessToken {
		o.mu.Unlock()
		drain(resp)
		return nil
	}
	if run := o.terminal; run != nil {
		o.mu.Unlock()
		drain(resp)
		return s.whileUserSignsIn(func() error {
			select {
			case <-run.done:
				return run.err
			case <-ctx.Done():
				return o.explain(context.Cause(ctx))
			}
		})
	}
	run := &terminalSignIn{done: make(chan struct{})}
	o.terminal = run
	o.mu.Unlock()
	run.err = s.whileUserSignsIn(func() error { return o.signInFromTerminal(ctx, req, resp) })
	o.mu.Lock()
	o.terminal = nil
	o.mu.Unlock()
	close(run.done)
	return run.err
}

// unconfigured reports whether the server's config says nothing of OAuth.
func (o *oauthClient) unconfigured() bool {
	c := o.cfg
	return c.ClientID == "" && c.ClientSecret == "" && len(c.Scopes) == 0 && c.ClientMetadataURL == "" && c.Grant == ""
}

// await keeps the challenge for the page's Authorize, and says so.
func (o *oauthClient) await(req *http.Request, resp *http.Response, challenges []oauthex.Challenge) error {
	drain(resp)
	o.mu.Lock()
	o.challenge = &challenge{url: req.URL.String(), status: resp.StatusCode, header: resp.Header.Clone()}
	o.mu.Unlock()
	problem := "asks you to sign in (OAuth)"
	if resp.StatusCode == http.StatusForbidden {
		problem = "asks for more permissions (OAuth scopes " + bearerParam(challenges, "scope") + ")"
	}
	return &SignInError{Server: o.name, Problem: problem, Next: "click Authorize beside it in the page's MCP panel", Err: errSignInNeeded}
}

// needsSignIn reports whether the page should offer Authorize, and
// whether the authorization page is open now.
func (o *oauthClient) needsSignIn() (needed, waiting bool, lastErr error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.challenge != nil, o.waiting, o.lastErr
}

// signInFromTerminal listens on a loopback redirect, has Open show the
// link, and waits for the browser to come back.
func (o *oauthClient) signInFromTerminal(ctx context.Context, req *http.Request, resp *http.Response) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		drain(resp)
		return &SignInError{Server: o.name, Problem: fmt.Sprintf("cannot listen for the browser's return on a loopback port (%v)", err), Next: "check that 127.0.0.1 is usable", Err: err}
	}
	srv := &http.Server{Handler: o.flows.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, o.opts.Wait)
	defer cancel()
	redirect := "http://" + ln.Addr().String() + CallbackPath
	return o.authorizationCode(ctx, req, resp, redirect, func(authURL string) { o.opts.Open(o.name, authURL) })
}

// authorizationCode runs the authorization code flow with PKCE, the
// browser coming back to redirect: show is given the authorization URL.
func (o *oauthClient) authorizationCode(ctx context.Context, req *http.Request, resp *http.Response, redirect string, show func(string)) error {
	o.mu.Lock()
	kept := o.kept
	o.mu.Unlock()
	stepUp := resp.StatusCode == http.StatusForbidden
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, err
			}
			wait := o.flows.add(u.Query().Get("state"), o.name)
			show(args.URL)
			return wait(ctx)
		},
		ScopeFilter:         func(discovered []string) []string { return o.scopes(discovered, stepUp) },
		RequestRefreshToken: true,
		Client:              o.http,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "toolscope", ClientURI: "https://github.com/toolscope/toolscope",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
			// A public client: PKCE stands in for a secret.
			TokenEndpointAuthMethod: "none",
		}},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			k := &signedIn{Server: o.name, URL: o.url, Grant: GrantAuthorizationCode, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				RedirectURL: redirect, TokenURL: c.Endpoint.TokenURL, AuthStyle: c.Endpoint.AuthStyle, Scopes: c.Scopes, Issuer: o.cfg.Issuer, Token: tok}
			return o.keep(k, c.TokenSource(ctx, tok)), nil
		},
	}
	if o.cfg.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.cfg.ClientMetadataURL}
	}
	switch {
	case o.cfg.ClientID != "":
		cfg.PreregisteredClient = client(o.cfg.ClientID, o.cfg.ClientSecret)
		// The SDK refuses an authorization server of another issuer
		// before it uses the client.
		cfg.PreregisteredClient.Issuer = o.cfg.Issuer
	case kept != nil && kept.Grant == GrantAuthorizationCode && kept.RedirectURL == redirect && kept.ClientID != o.cfg.ClientMetadataURL:
		// The client registered last time, for this very redirect:
		// registering anew at every sign-in would litter the
		// authorization server with clients.
		cfg.PreregisteredClient = client(kept.ClientID, kept.ClientSecret)
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		drain(resp)
		return o.explain(err)
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return o.explain(err)
	}
	return nil
}

func client(id, secret string) *oauthex.ClientCredentials {
	c := &oauthex.ClientCredentials{ClientID: id}
	if secret != "" {
		c.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
	}
	return c
}

// scopes are those to ask for: the configured ones instead of those the
// server names, but for a step-up, which adds what the server asks; and
// always those granted before, which a step-up must not lose.
func (o *oauthClient) scopes(discovered []string, stepUp bool) []string {
	want := discovered
	if len(o.cfg.Scopes) > 0 {
		want = o.cfg.Scopes
		if stepUp {
			want = union(want, discovered)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.kept != nil {
		want = union(o.kept.Scopes, want)
	}
	return want
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// clientCredentials signs toolscope itself in with the configured client
// id and secret, at the token endpoint that the server's metadata names.
func (o *oauthClient) clientCredentials(ctx context.Context, req *http.Request, resp *http.Response, challenges []oauthex.Challenge) error {
	serverURL := req.URL.String()
	prm := o.resourceMetadata(ctx, challenges, serverURL)
	issuer := prm.AuthorizationServers[0]
	if o.cfg.Issuer != "" {
		i := slices.IndexFunc(prm.AuthorizationServers, func(s string) bool { return sameIssuer(s, o.cfg.Issuer) })
		if i < 0 {
			return o.wrongIssuer(fmt.Sprintf("%q", prm.AuthorizationServers[0]))
		}
		issuer = prm.AuthorizationServers[i]
	}
	// GetAuthServerMetadata checks that the metadata's issuer is issuer.
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, o.http)
	if err != nil {
		return o.explain(fmt.Errorf("failed to get authorization server metadata: %w", err))
	}
	tokenURL, methods := strings.TrimSuffix(issuer, "/")+"/token", []string(nil)
	if asm != nil {
		tokenURL, methods = asm.TokenEndpoint, asm.TokenEndpointAuthMethodsSupported
	}
	asked := strings.Fields(bearerParam(challenges, "scope"))
	if len(asked) == 0 {
		asked = prm.ScopesSupported
	}
	scopes := o.scopes(asked, resp.StatusCode == http.StatusForbidden)
	cc := o.credentials(tokenURL, secretStyle(methods), scopes, prm.Resource)
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, o.http))
	if err != nil {
		return o.explain(fmt.Errorf("token exchange failed: %w", err))
	}
	k := &signedIn{Server: o.name, URL: o.url, Grant: GrantClientCredentials, ClientID: o.cfg.ClientID,
		TokenURL: tokenURL, AuthStyle: cc.AuthStyle, Scopes: scopes, Resource: prm.Resource, Issuer: o.cfg.Issuer, Token: tok}
	refresh := context.WithValue(context.Background(), oauth2.HTTPClient, o.http)
	o.keep(k, oauth2.ReuseTokenSource(tok, cc.TokenSource(refresh)))
	return nil
}

func (o *oauthClient) credentials(tokenURL string, style oauth2.AuthStyle, scopes []string, resource string) *clientcredentials.Config {
	cc := &clientcredentials.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, TokenURL: tokenURL, Scopes: scopes, AuthStyle: style}
	if resource != "" {
		cc.EndpointParams = url.Values{"resource": {resource}} // RFC 8707, as the MCP spec asks
	}
	return cc
}

// secretStyle is how to present the client secret, as the authorization
// server's metadata allows; client_secret_basic is the default of RFC
// 8414 when it says nothing.
func secretStyle(methods []string) oauth2.AuthStyle {
	if !slices.Contains(methods, "client_secret_basic") && slices.Contains(methods, "client_secret_post") {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// resourceMetadata finds the server's protected resource metadata where
// the MCP spec says to look: the challenge's resource_metadata, then the
// well-known URIs at the endpoint's path and at the root. A server with
// none is, as in the 2025-03-26 revision, its own authorization server.
func (o *oauthClient) resourceMetadata(ctx context.Context, challenges []oauthex.Challenge, serverURL string) *oauthex.ProtectedResourceMetadata {
	u, err := url.Parse(serverURL)
	if err != nil {
		return &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{serverURL}}
	}
	origin := u.Scheme + "://" + u.Host
	type place struct{ metadata, resource string }
	var places []place
	if m := bearerParam(challenges, "resource_metadata"); m != "" {
		places = append(places, place{m, serverURL})
	}
	places = append(places,
		place{origin + "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/"), serverURL},
		place{origin + "/.well-known/oauth-protected-resource", origin})
	for _, p := range places {
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, p.metadata, p.resource, o.http); err == nil && len(prm.AuthorizationServers) > 0 {
			return prm
		}
	}
	return &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{origin}}
}

// bearerParam is a parameter of the Bearer challenge ("" when none).
func bearerParam(challenges []oauthex.Challenge, name string) string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// wrongIssuer refuses the authorization server the MCP server named
// (quoted), which is not the configured "issuer".
func (o *oauthClient) wrongIssuer(named string) error {
	return &SignInError{Server: o.name,
		Problem: fmt.Sprintf(`its authorization server is %s, not the configured "issuer" %s; toolscope sent it neither the client nor its secret`, named, o.cfg.Issuer),
		Next:    `check "issuer" in the server's "oauth" object in the MCP config (the client's secret goes to that authorization server alone)`}
}

// explain words a failed sign-in: what went wrong, and what to do.
func (o *oauthClient) explain(err error) error {
	var done *SignInError
	if errors.As(err, &done) {
		return done
	}
	again := "sign in again (run the command again)"
	if o.opts.Open == nil {
		again = "click Authorize again"
	}
	e := &SignInError{Server: o.name, Err: err, Next: again + "; toolscope mcp logout " + o.name + " forgets a sign-in that no longer works"}
	var retrieve *oauth2.RetrieveError
	var netErr net.Error
	msg := err.Error()
	if _, named, ok := strings.Cut(msg, "authorization server issuer "); ok && strings.Contains(msg, "does not match pre-registered credentials issuer") {
		// The SDK's refusal (see authorizationCode), as "%q does not match …".
		named, _, _ = strings.Cut(named, " does not match")
		return o.wrongIssuer(named)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.Problem = fmt.Sprintf("no answer from the browser within %s", o.opts.Wait)
		e.Next = again + ", and approve the request in the browser"
	case errors.Is(err, context.Canceled):
		e.Problem = "the sign-in was stopped"
	case errors.As(err, &retrieve):
		what := retrieve.ErrorCode
		if retrieve.ErrorDescription != "" {
			what += ": " + retrieve.ErrorDescription
		}
		if what == "" {
			what = retrieve.Response.Status
		}
		e.Problem = "its authorization server's token endpoint refused (" + what + ")"
		if o.cfg.ClientID != "" {
			e.Next = `check "clientId" and "clientSecret" in the server's "oauth" object in the MCP config, then ` + again
		}
	case strings.Contains(msg, "failed to register client"):
		e.Problem = "its authorization server refused to register toolscope as a client (" + msg + ")"
		e.Next = `register a client with it yourself and give its "clientId" (and "clientSecret") in the server's "oauth" object in the MCP config; or, if the server takes a fixed token, give it as an "Authorization" header in "headers"`
	case strings.Contains(msg, "no configured client registration methods"):
		e.Problem = "its authorization server offers no way for toolscope to register (no registration endpoint)"
		e.Next = `give a "clientId" registered with it in the server's "oauth" object in the MCP config`
	case errors.As(err, &netErr) || strings.Contains(msg, "authorization server metadata"):
		e.Problem = "cannot reach its authorization server (" + msg + ")"
		e.Next = "check the network and that the authorization server is up, then " + again
	default:
		e.Problem = "signing in failed (" + msg + ")"
	}
	return e
}

// drain reads what is left of a response the SDK hands over, and closes
// it, so that the connection can be used again.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// whileUserSignsIn holds the handshake's timeout while fn waits for the
// user, who may take longer than a server may to answer; Options.OAuth.
// Wait bounds that instead. s is nil for a sign-in from the page, which
// no connection waits for.
func (s *server) whileUserSignsIn(fn func() error) error {
	if s != nil && s.handshakeTimer != nil && s.handshakeTimer.Stop() {
		defer s.handshakeTimer.Reset(s.opts.HandshakeTimeout)
	}
	return fn()
}

// oauthHandler is the handler the SDK's transport asks for tokens, or
// nil for a server that toolscope does not sign in to: one with its own
// Authorization header.
func (s *server) oauthHandler() auth.OAuthHandler {
	if s.oauth == nil {
		return nil
	}
	return connAuth{o: s.oauth, s: s}
}

// signInNeeded puts a server that waits for the user's sign-in in
// StateSignIn, and returns err.
func (s *server) signInNeeded(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.err, s.tools = StateSignIn, err, nil
	return err
}

// signsIn reports whether toolscope answers the server's 401 with OAuth:
// a streamable HTTP server without an Authorization header of its own.
func (s ServerSpec) signsIn() bool {
	if s.transport() != TransportHTTP {
		return false
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// info is the sign-in's state for ServerInfo.
func (o *oauthClient) info() (signIn, lastErr string) {
	needed, waiting, err := o.needsSignIn()
	switch {
	case waiting:
		signIn = "waiting"
	case needed:
		signIn = "needed"
	}
	if err != nil {
		lastErr = err.Error()
	}
	return signIn, lastErr
}

// end stops the page's sign-in under way, if any.
func (o *oauthClient) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cancel != nil {
		o.cancel()
	}
}
