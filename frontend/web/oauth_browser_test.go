package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/oauthtest"
)

// TestMCPSignInFromThePage connects an OAuth-protected MCP server through
// the page: the panel says "Connect to remote" with Authorize, the button
// opens the authorization server's page in a new tab, approving there
// brings the browser back to toolscope's /oauth/callback, and the
// server's tools appear in the panel with no reload, its resources
// beside them. Neither the page
// nor /api/mcp ever holds a token.
func TestMCPSignInFromThePage(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, oauthtest.Options{})
	s := demoModel(0)
	s.MCP = []mcp.ServerSpec{{Name: "remote", URL: as.URL + "/mcp", Transport: mcp.TransportHTTP}}
	url := serveWith(t, s, func(*server.Config) {}, engine.WithMCPOAuth(mcp.OAuthOptions{DataDir: t.TempDir()}))
	p := open(t, url)

	const group = `document.querySelector('.tool-group[data-source="mcp:remote"]')`
	p.waitFor("Connect to remote", group+`.querySelector('.mcp-signin:not([hidden])')`)
	contains(t, "the sign-in", eval[string](p, group+`.querySelector('.mcp-signin').innerText`), "Connect to remote")
	contains(t, "the server's state", eval[string](p, group+`.querySelector('.badge').innerText`), "sign-in")
	show := func(name string) { // the server's part of the panel, in view
		_ = eval[chromedp.Void](p, group+`.scrollIntoView({block: 'start'})`)
		p.screenshot(name)
	}
	p.viewport(1366, 768)
	show("oauth-authorize-laptop")
	p.viewport(1920, 1080)
	show("oauth-authorize-projector")

	opened := chromedp.WaitNewTarget(p.ctx, func(i *target.Info) bool { return i.Type == "page" })
	p.do(chromedp.Click(chromedp.CSS(`.mcp-authorize`)))
	tab, closeTab := chromedp.NewContext(p.ctx, chromedp.WithTargetID(<-opened))
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.ID("approve"))); err != nil {
		t.Fatalf("the authorization page: %v", err)
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("approve"))); err != nil {
		t.Fatalf("approving: %v", err)
	}
	p.waitFor("the server's tools", `[...document.querySelectorAll('.tool-group[data-source="mcp:remote"] .tool-name')].map(e => e.textContent).includes('whoami')`)
	contains(t, "the server's state", eval[string](p, group+`.querySelector('.badge').innerText`), "ready")
	// The tab has come back by now: the server could not connect before.
	back, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.pathname + ' ' + document.querySelector('h1').innerText`))
	if err != nil || back != mcp.CallbackPath+" Authorization received" {
		t.Errorf("the tab after approving shows %q, %v; want toolscope's callback saying Authorization received", back, err)
	}
	if !eval[bool](p, group+`.querySelector('.mcp-signin').hidden`) {
		t.Error("Authorize is still offered after the sign-in")
	}
	// The panel brought in by the sign-in has its resources listed too.
	defer func() { // what the page and the API held, when they did not
		if t.Failed() {
			box, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.querySelector('.mcp-catalog[data-server="remote"]')?.outerHTML ?? 'no box'`))
			api, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`fetch('/api/mcp/resources').then(r => r.text())`, chromedp.EvalAwaitPromise))
			t.Logf("the resources box: %s\nGET /api/mcp/resources: %s", box, api)
		}
	}()
	p.waitFor("the server's resources", `[...document.querySelectorAll('.mcp-catalog[data-server="remote"]:not([hidden]) .resource-name')].map(e => e.textContent).includes('profile')`)
	p.viewport(1366, 768)
	show("oauth-connected-laptop")
	p.viewport(1920, 1080)
	show("oauth-connected-projector")

	html := eval[string](p, `document.documentElement.outerHTML`)
	api, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`fetch('/api/mcp').then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range as.Tokens() {
		if strings.Contains(html, tok) || strings.Contains(api, tok) {
			t.Errorf("the page or /api/mcp holds a token")
		}
	}
}
