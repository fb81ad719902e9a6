package web_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/mcp/askstest"
)

// withAsksServer is settings with the MCP server of package askstest,
// served in-process over streamable HTTP: its tools ask while they run.
func withAsksServer(t *testing.T, s engine.Settings) engine.Settings {
	t.Helper()
	h, err := mcpserver.Handler(askstest.Server(), mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.MCP = []mcp.ServerSpec{{Name: "asks", URL: srv.URL, Transport: mcpserver.TransportHTTP}}
	return s
}

func callReply(tool, args string) ollamatest.Reply {
	return ollamatest.Reply{Text: fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", tool, args)}
}

// shoot saves the card matched by selector, centred, at a laptop's and a
// projector's size.
func (p *page) shoot(selector, name string) {
	p.t.Helper()
	for _, size := range [][2]int64{{1366, 768}, {1920, 1080}} {
		p.do(chromedp.EmulateViewport(size[0], size[1]))
		eval[bool](p, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, selector))
		p.screenshot(fmt.Sprintf("%s-%dx%d", name, size[0], size[1]))
	}
	p.do(chromedp.EmulateViewport(1400, 1000))
}

// TestAServerThatElicits: a server's form shows as a card under the tool
// call, with its schema's defaults filled in; filled in and accepted, the
// server gets the answer; declined, it gets a decline.
func TestAServerThatElicits(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Reply(callReply("book_table", `{}`), ollamatest.Reply{Text: "Booked."},
		callReply("book_table", `{}`), ollamatest.Reply{Text: "Not booked."})
	p := open(t, serve(t, withAsksServer(t, ollamaModel(srv.Host(), "qwen3:4b"))))

	p.send("Book a table")
	form := `#chat .turn:nth-of-type(1) .step-ask form`
	p.waitFor("the form", fmt.Sprintf(`document.querySelector('%s button[type=submit]') !== null`, form))
	defaults := eval[map[string]any](p, fmt.Sprintf(`(() => { const f = document.querySelector('%s');
  return { guests: f.querySelector('[data-field=guests]').value, seating: f.querySelector('[data-field=seating]').value,
    seatingTitle: f.querySelector('[data-field=seating]').selectedOptions[0].textContent, emailType: f.querySelector('[data-field=email]').type,
    min: f.querySelector('[data-field=guests]').min, max: f.querySelector('[data-field=guests]').max,
    labels: [...f.querySelectorAll('.ask-field > label, .ask-field > .ask-label')].map(l => l.textContent) }; })()`, form))
	if defaults["guests"] != "2" || defaults["seating"] != "in" || defaults["seatingTitle"] != "Inside" || defaults["emailType"] != "email" ||
		defaults["min"] != "1" || defaults["max"] != "8" {
		t.Errorf("the form's fields = %v; want the schema's defaults, titles, format and bounds", defaults)
	}
	if got := fmt.Sprint(defaults["labels"]); got != "[Your name (required) Email Seating Guests (required) High chair]" {
		t.Errorf("the form's labels, in order: %s", got)
	}
	card := p.turns()[0].Rounds[0]
	ask := step(t, card, "ask")
	contains(t, "the ask's title", ask.Title, "asks asks you")
	contains(t, "the ask's meta", ask.Meta, "server's request")
	contains(t, "the ask's body", ask.Body, "Book a table for tonight?")
	p.do(chromedp.SendKeys(form+` [data-field=name]`, "Ada"))
	eval[bool](p, fmt.Sprintf(`(document.querySelector('%s [data-field=guests]').value = '3', true)`, form))
	p.shoot(`#chat .step-ask`, "elicitation-form")
	p.do(chromedp.Click(form + ` button[type=submit]`))
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	r1 := p.turns()[0].Rounds[0]
	contains(t, "the ask's outcome", step(t, r1, "ask").Body, `Accepted: {"guests":3,"high_chair":false,"name":"Ada","seating":"in"}`)
	contains(t, "what the server got", step(t, r1, "exec").Body, `accept {"guests":3,"high_chair":false,"name":"Ada","seating":"in"}`)
	p.shoot(`#chat .step-ask`, "elicitation-accepted")
	// On 2026-07-28 the server asked in the call's result, and the call's
	// JSON-RPC messages show both rounds: the call, the result that asks,
	// the call again with the answer, and its result.
	wire := eval[string](p, `(() => { const w = document.querySelector('#chat .turn:nth-of-type(1) .step-exec [data-slot=wire]');
  w.open = true; return w.textContent; })()`)
	for _, want := range []string{"4 messages", "MCP 2026-07-28", `"resultType": "input_required"`, `"method": "elicitation/create"`, `"inputResponses"`, `"resultType": "complete"`} {
		contains(t, "the call's JSON-RPC messages", wire, want)
	}

	p.send("Book one again")
	declined := `#chat .turn:nth-of-type(2) .step-ask`
	p.waitFor("the second form", fmt.Sprintf(`document.querySelector('%s button[type=submit]') !== null`, declined))
	p.do(chromedp.Click(declined + ` .ask-actions button:nth-of-type(2)`))
	if reason := p.waitEnd(2); reason != agent.Answered {
		t.Fatalf("the second run ended %q", reason)
	}
	r2 := p.turns()[1].Rounds[0]
	contains(t, "the declined ask's outcome", step(t, r2, "ask").Body, "Declined")
	contains(t, "what the server got", step(t, r2, "exec").Body, "decline null")
}

// TestAServerThatSamples: a server's sampling request is answered by the
// run's own model, shown as a nested round under the call: the server's
// messages, the prompt the model was given, its raw output, its answer.
func TestAServerThatSamples(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Reply(callReply("summarize", `{"text": "The cat sat on the mat all day long."}`),
		ollamatest.Reply{Text: "A cat spent the day on a mat."},
		ollamatest.Reply{Text: "In short: a cat spent the day on a mat."})
	p := open(t, serve(t, withAsksServer(t, ollamaModel(srv.Host(), "qwen3:4b"))))
	p.send("Summarize: The cat sat on the mat all day long.")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	r1 := p.turns()[0].Rounds[0]
	sample := step(t, r1, "sample")
	contains(t, "the sampling card's title", sample.Title, "asks asks the model")
	contains(t, "the sampling card's meta", sample.Meta, "server's request")
	for _, want := range []string{"max tokens 4000 asked, 1024 given", "You summarize texts in one sentence.", "Summarize: The cat sat on the mat all day long.",
		`"claude-3-haiku"`, "Raw model output", "A cat spent the day on a mat.", "Sent back to the server"} {
		contains(t, "the sampling card", sample.Body, want)
	}
	prompt := eval[string](p, `document.querySelector('#chat .step-sample [data-slot=prompt]').textContent`)
	contains(t, "the sampling round's prompt", prompt, "Summarize: The cat sat on the mat all day long.")
	contains(t, "the sampling round's prompt", prompt, "You summarize texts in one sentence.")
	contains(t, "what the server got", step(t, r1, "exec").Body, "A cat spent the day on a mat. (model qwen3:4b, endTurn)")
	eval[bool](p, `(document.querySelector('#chat .step-sample .ask-prompt').open = true, true)`)
	p.shoot(`#chat .step-sample`, "sampling-round")
}
