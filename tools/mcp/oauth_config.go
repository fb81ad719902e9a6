package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// Grants an OAuthConfig may name.
const (
	// GrantAuthorizationCode signs in a person, in their browser: the
	// default.
	GrantAuthorizationCode = "authorization_code"
	// GrantClientCredentials signs in toolscope itself, with a client id
	// and secret, for machine use: no browser, no person.
	GrantClientCredentials = "client_credentials"
)

// OAuthConfig is the "oauth" object of a server in an MCP config file:
//
//	"linear": {"url": "https://mcp.linear.app/mcp", "oauth": {"scopes": ["read"]}}
//	"ci":     {"url": "https://mcp.example.com/mcp", "oauth": {"grant": "client_credentials", "clientId": "toolscope-ci", "clientSecret": "${CI_MCP_SECRET}"}}
type OAuthConfig struct {
	// ClientID and ClientSecret are a client registered with the server's
	// authorization server beforehand. Without them toolscope registers
	// itself (dynamic client registration) or names itself by
	// ClientMetadataURL.
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	// Scopes to ask for instead of those the server names.
	Scopes []string `json:"scopes"`
	// ClientMetadataURL is an https URL where a client ID metadata
	// document describing toolscope is served; an authorization server
	// that accepts those takes the URL as the client id.
	ClientMetadataURL string `json:"clientMetadataUrl"`
	// Grant is GrantAuthorizationCode (the default) or
	// GrantClientCredentials.
	Grant string `json:"grant"`
	// Issuer, when set, is the authorization server ClientID belongs to:
	// one of another issuer, which the MCP server may name, is refused
	// before the client secret is sent anywhere.
	Issuer string `json:"issuer"`
}

// grant is the config's grant with the default filled in.
func (c *OAuthConfig) grant() string {
	if c == nil || c.Grant == "" {
		return GrantAuthorizationCode
	}
	return c.Grant
}

// isLoopback reports whether host is this machine, where plain http is
// allowed.
func isLoopback(host string) bool {
	return host == "localhost" || net.ParseIP(host).IsLoopback()
}

// sameIssuer compares issuer identifiers as the SDK does: a trailing
// slash makes no difference.
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// envRef is a whole value of the form ${NAME}.
var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// parseOAuth reads an "oauth" object, refusing unknown fields (a
// misspelt "clientID" would otherwise be dropped without a word) and
// reading a clientSecret of the form ${NAME} from the environment, so
// that the file itself need not hold the secret.
func parseOAuth(raw json.RawMessage) (*OAuthConfig, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c OAuthConfig
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf(`%w; it takes "clientId", "clientSecret", "scopes", "clientMetadataUrl", "grant" and "issuer"`, err)
	}
	if m := envRef.FindStringSubmatch(c.ClientSecret); m != nil {
		secret, ok := os.LookupEnv(m[1])
		if !ok || secret == "" {
			return nil, fmt.Errorf(`"clientSecret" is %s, but $%s is not set: export it, or write the secret itself`, c.ClientSecret, m[1])
		}
		c.ClientSecret = secret
	}
	return &c, nil
}

// check reports an oauth object that cannot work for a server on
// transport with headers.
func (c *OAuthConfig) check(transport string, headers map[string]string) error {
	var errs []error
	switch transport {
	case TransportHTTP:
	case TransportStdio:
		errs = append(errs, errors.New(`"oauth" works with streamable HTTP servers only; a stdio server takes its credentials from its "env" (or "args")`))
	default:
		errs = append(errs, errors.New(`"oauth" works with streamable HTTP servers only; reach this one with a token in "headers" instead`))
	}
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			errs = append(errs, errors.New(`"oauth" and an "Authorization" header both sign in; give one of them`))
		}
	}
	switch c.grant() {
	case GrantAuthorizationCode:
		if c.ClientSecret != "" && c.ClientID == "" {
			errs = append(errs, errors.New(`"clientSecret" without "clientId": give the client id it belongs to`))
		}
	case GrantClientCredentials:
		if c.ClientID == "" || c.ClientSecret == "" {
			errs = append(errs, errors.New(`the client_credentials grant needs "clientId" and "clientSecret"`))
		}
		if c.ClientMetadataURL != "" {
			errs = append(errs, errors.New(`"clientMetadataUrl" names a client that signs people in; the client_credentials grant does not use it`))
		}
	default:
		errs = append(errs, fmt.Errorf(`unknown "grant" %q; use "authorization_code" (the default) or "client_credentials"`, c.Grant))
	}
	if c.ClientMetadataURL != "" {
		if u, err := url.Parse(c.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			errs = append(errs, fmt.Errorf(`"clientMetadataUrl" must be an https URL with a path, such as https://example.com/toolscope.json, not %q`, c.ClientMetadataURL))
		}
	}
	if c.Issuer != "" {
		if c.ClientID == "" {
			errs = append(errs, errors.New(`"issuer" names the authorization server of a configured client: give its "clientId" too`))
		}
		if u, err := url.Parse(c.Issuer); err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
			!(u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname())) {
			errs = append(errs, fmt.Errorf(`"issuer" must be the authorization server's https URL, as its metadata's "issuer" gives it (such as https://auth.example.com), not %q`, c.Issuer))
		}
	}
	for _, s := range c.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\"\\") {
			errs = append(errs, fmt.Errorf(`scope %q: a scope is one word, without spaces or quotes`, s))
		}
	}
	return errors.Join(errs...)
}
