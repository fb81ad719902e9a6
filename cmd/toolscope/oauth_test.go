package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestOAuthOpensOnlySafeLinks: the terminal opens an authorization link
// (which a hostile MCP server's metadata may choose) only when it is
// https, or http to this machine; any other is shown with a warning and
// never handed to a program.
func TestOAuthOpensOnlySafeLinks(t *testing.T) {
	// A browser that cannot start: trying to open a link says so at once.
	t.Setenv("BROWSER", "/nonexistent/toolscope-test-browser")
	for link, opened := range map[string]bool{
		"https://auth.example.com/authorize?state=x":      true,
		"http://127.0.0.1:9000/authorize?state=x":         true,
		"http://localhost:9000/authorize":                 true,
		"http://[::1]:9000/authorize":                     true,
		"http://auth.example.com/authorize":               false,
		"file:///etc/passwd":                              false,
		"javascript:alert(1)":                             false,
		"ssh://attacker.example.com/":                     false,
		"-oProxyCommand=touch /tmp/pwned":                 false,
		"https:///no-host":                                false,
		"http://127.0.0.1.attacker.example.com/authorize": false,
	} {
		var stderr bytes.Buffer
		authorizeInBrowser(&stderr, "remote", link)
		out := stderr.String()
		if !strings.Contains(out, "Open this link to authorize remote: "+link) {
			t.Errorf("%s: the link is not shown: %q", link, out)
		}
		if tried := strings.Contains(out, "could not open a browser"); tried != opened {
			t.Errorf("%s: handed to the browser %v; want %v (%q)", link, tried, opened, out)
		}
		if refused := strings.Contains(out, "does not open this link itself"); refused == opened {
			t.Errorf("%s: refused %v; want %v (%q)", link, refused, !opened, out)
		}
	}
}
