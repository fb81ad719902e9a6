package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/toolscope/toolscope/agent"
)

// TestAppsToolCallsEndTheTurnInWords opens, from the Runs panel, a run of
// the /v1 API whose tools the app runs: the model's call goes back to the
// app, and the turn's last line says so in words, not as the API's
// "tool_calls".
func TestAppsToolCallsEndTheTurnInWords(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	mailTool := `{"type": "function", "function": {"name": "send_mail", "description": "Send an email.",
	"parameters": {"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}}, "required": ["to", "subject", "body"]}}}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model": "toolscope-demo", "tools": [`+mailTool+`], "messages": [{"role": "user", "content": "Email bob@example.com that I will be late"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/chat/completions = %d", resp.StatusCode)
	}

	p := open(t, url)
	item := `#run-list .run-item[data-source="api"]`
	p.waitFor("the API run in the Runs panel", `document.querySelector('`+item+`')`)
	p.do(chromedp.Click(chromedp.CSS(item)))
	if reason := p.waitEnd(1); reason != agent.Returned {
		t.Fatalf("the run ended %q in the page, want %q", reason, agent.Returned)
	}
	end := p.turns()[0].End
	if !strings.HasPrefix(end, "Calls returned to the app · 1 round") {
		t.Errorf("the turn ends %q", end)
	}
}
