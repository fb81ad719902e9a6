package web_test

// These tests drive the playground in a real headless Chromium against a
// real toolscope server, with the demo model or an in-process Ollama.
//
// Screenshots go to $SCREENSHOT_DIR when it is set. The README's picture
// is the email seed prompt at the binary's own pace, as it ends in a
// 1280×720 window; this test takes the same view, though its server keeps
// no history and its Runs panel says so:
//
//	SCREENSHOT_DIR=/tmp/shots go test ./frontend/web -run 'TestARunAtLaptopSize'
//
// The picture itself is taken from './start.sh --backend demo', as a user
// sees it.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/mcpserver"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools/mcp"
	"github.com/toolscope/toolscope/tools/retrieve/retrievetest"
	"github.com/toolscope/toolscope/tools/toolstest"
)

const (
	installHint = "install Chromium to run the browser tests: apt-get install -y chromium"
	// tabTimeout bounds a whole tab's test, not a step of it: generous,
	// since on two busy cores the race detector and the other packages'
	// tests share the CPU with Chromium.
	tabTimeout = 60 * time.Second
)

// browser is the one Chromium that every test opens its tabs in; when it
// could not start, noBrowser says why.
var (
	browser   context.Context
	noBrowser string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	path := chromiumPath()
	if path == "" {
		noBrowser = "Chromium not found at /usr/bin/chromium or on PATH: " + installHint
		return m.Run()
	}
	profile, err := os.MkdirTemp("", "toolscope-chromium-")
	if err != nil {
		noBrowser = err.Error()
		return m.Run()
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1400, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		noBrowser = fmt.Sprintf("Chromium at %s did not start: %v", path, err)
		return m.Run()
	}
	browser = ctx
	return m.Run()
}

func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	path, _ := exec.LookPath("chromium")
	return path
}

// ---- the server under test ------------------------------------------------

// serve starts toolscope's server on a loopback port, built by the same
// engine the binary uses, with settings s, and returns its base URL.
func serve(t *testing.T, s engine.Settings) string {
	t.Helper()
	return serveWith(t, s, func(*server.Config) {})
}

// demoModel is the demo model, quick, with stub tools that take toolDelay.
func demoModel(toolDelay time.Duration) engine.Settings {
	return engine.Settings{Backend: engine.BackendDemo, DemoDelay: 2 * time.Millisecond, ToolDelay: toolDelay}
}

// ollamaModel is model on the Ollama at host, with stub tools that take
// no time.
func ollamaModel(host, model string) engine.Settings {
	return engine.Settings{Backend: engine.BackendOllama, OllamaHost: host, Model: model}
}

// ---- a browser tab on the page --------------------------------------------

type page struct {
	t   *testing.T
	ctx context.Context // the tab, with the test's deadline
	tab context.Context // the tab, for a last screenshot past the deadline
}

// open loads the playground at url in a new tab of the shared Chromium.
// Uncaught exceptions on the page fail the test.
func open(t *testing.T, url string) *page {
	t.Helper()
	if browser == nil {
		if os.Getenv("CI") != "" {
			t.Fatal(noBrowser)
		}
		t.Skip(noBrowser)
	}
	tab, closeTab := chromedp.NewContext(browser)
	if err := chromedp.Do(tab); err != nil { // opens the tab, with no deadline
		closeTab()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, tabTimeout)

	var (
		mu         sync.Mutex
		exceptions []string
	)
	console := chromedp.Console(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for m, err := range console {
			if err != nil {
				return
			}
			if m.IsException() {
				mu.Lock()
				exceptions = append(exceptions, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		closeTab()
		<-watched
		for _, e := range exceptions {
			t.Errorf("uncaught exception on the page: %s", e)
		}
	})

	p := &page{t: t, ctx: ctx, tab: tab}
	p.do(chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.ID("message")))
	// The page's module script runs after parsing; wait until it has wired
	// the composer, or the first Enter would go to a bare textarea.
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	return p
}

func (p *page) do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, steps...); err != nil {
		p.t.Fatal(err)
	}
}

// eval runs a JavaScript expression and decodes its value.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript expression until it is truthy.
func (p *page) waitFor(what, expr string) {
	p.t.Helper()
	_, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		p.screenshot("failed-" + strings.ReplaceAll(what, " ", "-"))
		p.t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// send types a request into the composer and presses Enter.
func (p *page) send(text string) {
	p.t.Helper()
	p.do(chromedp.SendKeys(chromedp.ID("message"), text), enter)
}

// enter presses Enter as a person does. chromedp.KeyEvent(kb.Enter) also
// sends a "char" event, which types a line break even when the page
// cancelled the keydown; a real keyboard does not.
var enter = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13,
		})
		if err != nil {
			return err
		}
	}
	return nil
})

// waitEnd waits until turn n (from 1) has finished and returns how.
func (p *page) waitEnd(n int) agent.Reason {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("turn %d to finish", n),
		fmt.Sprintf(`document.querySelectorAll('#chat .turn [data-slot=end]:not([hidden])').length >= %d`, n))
	return agent.Reason(p.turns()[n-1].Reason)
}

// screenshot saves the viewport as name.png in $SCREENSHOT_DIR, or in a
// temporary directory.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		dir = p.t.TempDir()
	}
	ctx, cancel := context.WithTimeout(p.tab, 5*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
	if err != nil {
		p.t.Errorf("saving screenshot %s: %v", name, err)
	}
}

// The pipeline as the page draws it. Bodies are textContent, so that a
// folded card still reads; pseudo-element labels are not part of it.
type turnView struct {
	Message string
	Reason  string
	End     string
	Rounds  []roundView
}

type roundView struct {
	Stats map[string]string
	Steps []stepView
}

type stepView struct {
	Kind, Title, Meta, Body string
	Args                    map[string]string
}

const readPipeline = `[...document.querySelectorAll('#chat .turn')].map(turn => ({
  message: turn.querySelector('[data-slot=message]').innerText,
  reason: turn.querySelector('[data-slot=end]').dataset.reason ?? '',
  end: turn.querySelector('[data-slot=end]').innerText,
  rounds: [...turn.querySelectorAll('.round')].map(r => ({
    stats: Object.fromEntries([...r.querySelectorAll('.stats.is-filled dd')].map(dd => [dd.dataset.slot, dd.innerText])),
    steps: [...r.querySelectorAll('.step')].map(s => ({
      kind: [...s.classList].find(c => c.startsWith('step-')).slice(5),
      title: s.querySelector('[data-slot=title]').innerText,
      meta: s.querySelector('[data-slot=meta]').innerText,
      body: s.querySelector(".step-body").textContent,
      args: Object.fromEntries([...s.querySelectorAll('.args tbody tr')].map(tr => [tr.cells[0].innerText, tr.cells[1].innerText])),
    })),
  })),
}))`

func (p *page) turns() []turnView {
	p.t.Helper()
	return eval[[]turnView](p, readPipeline)
}

// step returns the first step of kind in a round, failing the test when
// there is none.
func step(t *testing.T, r roundView, kind string) stepView {
	t.Helper()
	for _, s := range r.Steps {
		if s.Kind == kind {
			return s
		}
	}
	t.Fatalf("no %q step in the round; it has %v", kind, kinds(r))
	return stepView{}
}

// callThenAnswer checks that turn asked request and took two rounds, a
// tool call whose result goes back and then an answer, and returns them.
func callThenAnswer(t *testing.T, turn turnView, request string) (r1, r2 roundView) {
	t.Helper()
	if turn.Message != request {
		t.Errorf("the request shows %q, want %q", turn.Message, request)
	}
	if len(turn.Rounds) != 2 {
		t.Fatalf("%d rounds, want 2 (call, then answer)", len(turn.Rounds))
	}
	r1, r2 = turn.Rounds[0], turn.Rounds[1]
	if got, want := kinds(r1), []string{"send", "thinking", "raw", "call", "exec", "response"}; !equal(got, want) {
		t.Errorf("round 1 steps = %v, want %v", got, want)
	}
	if got, want := kinds(r2), []string{"send", "thinking", "raw", "answer"}; !equal(got, want) {
		t.Errorf("round 2 steps = %v, want %v", got, want)
	}
	return r1, r2
}

func kinds(r roundView) []string {
	var ks []string
	for _, s := range r.Steps {
		ks = append(ks, s.Kind)
	}
	return ks
}

func contains(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %q", what, got, want)
	}
}

// viewInput opens "View LLM input" of a round and returns the dialog's
// prompt and message list text.
func (p *page) viewInput(turn, round int) (prompt, messages string) {
	p.t.Helper()
	sel := fmt.Sprintf(`document.querySelectorAll('#chat .turn')[%d].querySelectorAll('.round')[%d].querySelector('.view-input')`, turn-1, round-1)
	p.waitFor("the View LLM input button", sel)
	_ = eval[chromedp.Void](p, sel+`.click()`)
	p.waitFor("the LLM input dialog", `document.getElementById('input-dialog').open`)
	prompt = eval[string](p, `document.getElementById('input-prompt').textContent`)
	messages = eval[string](p, `document.getElementById('input-messages').textContent`)
	p.do(chromedp.KeyEvent(kb.Escape))
	p.waitFor("the dialog to close", `!document.getElementById('input-dialog').open`)
	return prompt, messages
}

// ---- tests ----------------------------------------------------------------

// TestSeedPrompts runs the three seed requests on the demo model, as the
// page offers them, and checks every step of the loop as the page draws
// it. The seeds name days relative to today, so the dates the tools get
// are worked out here from the clock.
func TestSeedPrompts(t *testing.T) {
	t.Parallel()
	const toolDelay = 3 * time.Second // long enough to watch the timer, on a busy machine too
	url := serve(t, demoModel(toolDelay))
	today := time.Now()
	tomorrow := today.AddDate(0, 0, 1)
	// The demo reads "next Monday" as the Monday of next week.
	nextMonday := today.AddDate(0, 0, 7-(int(today.Weekday())+6)%7)
	human := func(t time.Time) string { return t.Format("Monday, January 2") }
	tests := []struct {
		name, prompt, tool string
		args               map[string]string // argument → a part of its value
		result, answer     string
	}{{
		name: "email", prompt: "Send an email to john@example.com about tomorrow's standup", tool: "send_mail",
		args:   map[string]string{"to": "john@example.com", "subject": "Standup", "body": "standup"},
		result: `"status":"sent"`, answer: "Your email to john@example.com has been sent",
	}, {
		name: "meeting", prompt: "Schedule a meeting with alice@co.com tomorrow at 10:00", tool: "schedule_meeting",
		args:   map[string]string{"attendees": `"alice@co.com"`, "date": tomorrow.Format(time.DateOnly), "time": "10:00"},
		result: `"status":"scheduled"`, answer: "with alice@co.com for " + human(tomorrow) + " at 10:00",
	}, {
		name: "cancel", prompt: "Cancel the standup meeting next Monday", tool: "cancel_meeting",
		args:   map[string]string{"title": "standup", "date": nextMonday.Format(time.DateOnly)},
		result: `"status":"cancelled"`, answer: `I cancelled "standup" on ` + human(nextMonday) + ".",
	}}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := open(t, url)
			seed := fmt.Sprintf(`document.querySelectorAll('#empty .seed')[%d]`, i)
			if got := eval[string](p, seed+`?.dataset.prompt ?? ''`); got != tt.prompt {
				t.Fatalf("seed %d is %q, want %q", i+1, got, tt.prompt)
			}
			_ = eval[chromedp.Void](p, seed+`.click()`)

			// The tool runs: the timer counts while it does.
			timer := `document.querySelector('.step-exec.is-live .timer')`
			// Its first reading is taken as it appears, in the same check.
			p.waitFor("the tool to start", `(t => t && (window.firstTimer = t.textContent, true))(`+timer+`)`)
			first := eval[string](p, `window.firstTimer`)
			p.waitFor("the timer to move", fmt.Sprintf(`%s?.textContent !== %q && parseFloat(%[1]s.textContent) > 0`, timer, first))
			p.screenshot(tt.name + "-running")

			if reason := p.waitEnd(1); reason != agent.Answered {
				t.Fatalf("the run ended %q, want %q", reason, agent.Answered)
			}
			p.screenshot(tt.name + "-final")

			turn := p.turns()[0]
			r1, r2 := callThenAnswer(t, turn, tt.prompt)

			contains(t, "the round 1 input summary", step(t, r1, "send").Meta, "toolscope-demo · raw mode · hermes calls · 2 messages")
			contains(t, "thinking", step(t, r1, "thinking").Body, "Okay, the user wants me to")
			raw := step(t, r1, "raw").Body
			contains(t, "raw output", raw, "<think>")
			contains(t, "raw output", raw, `<tool_call>`)
			contains(t, "raw output", raw, `{"name": "`+tt.tool+`"`)

			call := step(t, r1, "call")
			contains(t, "the parsed call", call.Body, tt.tool)
			contains(t, "the parsed call", call.Meta, "parsed by toolscope")
			for arg, want := range tt.args {
				contains(t, "argument "+arg, call.Args[arg], want)
			}

			exec := step(t, r1, "exec")
			contains(t, "the executed tool", exec.Title, "Executed "+tt.tool)
			contains(t, "the tool result", exec.Body, tt.result)
			took, err := strconv.ParseFloat(strings.TrimSuffix(exec.Meta, " s"), 64)
			if err != nil || took < toolDelay.Seconds() {
				t.Errorf("the tool's time shows %q, want the server's duration, at least %v", exec.Meta, toolDelay)
			}

			response := step(t, r1, "response")
			contains(t, "the injected response", response.Body, "<tool_response>\n{")
			contains(t, "the injected response", response.Body, tt.result)

			contains(t, "the answer", step(t, r2, "answer").Body, tt.answer)
			for _, r := range turn.Rounds {
				for _, counter := range []string{"prompt_tokens", "output_tokens", "first_token", "speed", "done_reason"} {
					if r.Stats[counter] == "" {
						t.Errorf("round counter %s is missing: %v", counter, r.Stats)
					}
				}
			}
			contains(t, "the done reason", r2.Stats["done_reason"], "stop")
			contains(t, "the turn's end", turn.End, "Answered · 2 rounds")

			prompt, _ := p.viewInput(1, 2)
			contains(t, "round 2's prompt", prompt, "<|im_start|>user\n<tool_response>\n{")
			contains(t, "round 2's prompt", prompt, tt.result)
			if n := eval[int](p, `document.querySelectorAll('#input-prompt .tok-tool_response').length`); n != 2 {
				t.Errorf("round 2's prompt highlights %d <tool_response> tags, want 2 (open and close)", n)
			}

			// The whole conversation in one picture, for the README.
			grow := eval[int64](p, `document.getElementById('chat').scrollHeight - document.getElementById('chat').clientHeight`)
			p.do(chromedp.EmulateViewport(1400, 1000+grow))
			p.screenshot(tt.name + "-full")
		})
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// TestStop stops a run while its tool is running, with the Stop button and
// with Esc.
func TestStop(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(time.Minute))
	tests := []struct {
		name string
		stop chromedp.Action[chromedp.Void]
	}{
		{"button", chromedp.Click(chromedp.ID("stop"))},
		{"Esc", chromedp.KeyEvent(kb.Escape)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := open(t, url)
			p.send("Send an email to john@example.com about tomorrow's standup")
			p.waitFor("the tool to start", `document.querySelector('.step-exec.is-live')`)
			p.waitFor("the Stop button", `!document.getElementById('stop').hidden && !document.getElementById('stop').disabled`)
			p.do(tt.stop)

			if reason := p.waitEnd(1); reason != agent.Cancelled {
				t.Fatalf("the run ended %q, want %q", reason, agent.Cancelled)
			}
			p.screenshot("stopped-" + tt.name)
			r := p.turns()[0].Rounds[0]
			exec := step(t, r, "exec")
			contains(t, "the stopped tool", exec.Title, "Stopped send_mail")
			contains(t, "the stopped tool", exec.Body, "stopped by the user")
			if eval[bool](p, `document.querySelector('.step-exec').classList.contains('is-failed')`) {
				t.Error("the tool the user stopped is drawn as failed")
			}
			contains(t, "the notice", step(t, r, "notice").Title, "Stopped")
			if eval[bool](p, `document.querySelector('.step-exec .timer').closest('.is-live') !== null`) {
				t.Error("the timer is still live after the run stopped")
			}
			p.waitFor("the composer to be ready again", `document.getElementById('stop').hidden && !document.getElementById('send').disabled`)
		})
	}
}

// TestStopWhileACallStreams stops the demo model while it writes a call:
// a stop is no parse error, so the call's card says it was stopped, and
// the model is told the user stopped it, not that it wrote a broken call.
func TestStopWhileACallStreams(t *testing.T) {
	t.Parallel()
	s := demoModel(0)
	s.DemoDelay = 100 * time.Millisecond // a call takes seconds to write: time to press Stop
	p := open(t, serve(t, s))
	p.send("Send an email to john@example.com about tomorrow's standup")
	p.waitFor("the call to stream", `document.querySelector('.step-call-live.is-live [data-slot=text]')?.textContent.includes('send_mail')`)
	p.do(chromedp.Click(chromedp.ID("stop")))

	if reason := p.waitEnd(1); reason != agent.Cancelled {
		t.Fatalf("the run ended %q, want %q", reason, agent.Cancelled)
	}
	p.screenshot("stopped-inside-a-call")
	r := p.turns()[0].Rounds[0]
	if ks := kinds(r); slices.Contains(ks, "call-invalid") {
		t.Fatalf("a stopped call is drawn as an invalid one: %v", ks)
	}
	call := step(t, r, "call-live")
	if call.Title != "Stopped: partial call" || !strings.Contains(call.Body, "send_mail") {
		t.Errorf("the stopped call reads %q: %q, want \"Stopped: partial call\" over its characters so far", call.Title, call.Body)
	}
	if !eval[bool](p, `document.querySelector('.step-call-live').classList.contains('is-partial')`) {
		t.Error("the stopped call is not marked partial")
	}
	response := step(t, r, "response").Body
	contains(t, "the response the model reads", response, `{"error":"stopped by the user"}`)
	if strings.Contains(response, "ended inside the call") {
		t.Errorf("the model is told it wrote a broken call: %s", response)
	}
}

// TestKeysAndHistory checks that Shift+Enter is a new line, Enter sends,
// and a follow-up's input holds the earlier turn.
func TestKeysAndHistory(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(10*time.Millisecond)))

	p.do(
		chromedp.SendKeys(chromedp.ID("message"), "Send an email to john@example.com"),
		chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(kb.ModifierShift)),
		chromedp.SendKeys(chromedp.ID("message"), "about tomorrow's standup"),
	)
	if got := eval[string](p, `document.getElementById('message').value`); got != "Send an email to john@example.com\nabout tomorrow's standup" {
		t.Errorf("after Shift+Enter the message is %q, want two lines", got)
	}
	if n := eval[int](p, `document.querySelectorAll('#chat .turn').length`); n != 0 {
		t.Fatalf("Shift+Enter sent the message: %d turns", n)
	}
	p.do(enter)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the first run ended %q", reason)
	}
	if got := eval[string](p, `document.getElementById('message').value`); got != "" {
		t.Errorf("the composer still holds %q after sending", got)
	}

	p.send("Schedule a meeting with alice@co.com tomorrow at 10:00")
	if reason := p.waitEnd(2); reason != agent.Answered {
		t.Fatalf("the follow-up ended %q", reason)
	}
	turns := p.turns()
	if len(turns) != 2 {
		t.Fatalf("%d turns on the page, want both", len(turns))
	}
	contains(t, "the first turn", turns[0].Message, "about tomorrow's standup")
	prompt, messages := p.viewInput(2, 1)
	for _, earlier := range []string{"about tomorrow's standup", `"name": "send_mail"`, "Your email to john@example.com has been sent"} {
		contains(t, "the follow-up's prompt", prompt, earlier)
		contains(t, "the follow-up's messages", messages, earlier)
	}
}

// TestModelMarkupIsText has the model write markup in its thinking, in a
// tool call's arguments and in its answer: the page must show it as text.
func TestModelMarkupIsText(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	const markup = `<img src=x onerror=alert(1)>`
	srv.Reply(
		ollamatest.Reply{Text: "<think>I could write <b>bold</b> " + markup + "</think>\n" +
			`<tool_call>` + "\n" + `{"name": "send_mail", "arguments": {"to": "john@example.com", "subject": "` + markup + `", "body": "<script>alert(2)</script>"}}` + "\n" + `</tool_call>`},
		ollamatest.Reply{Text: "Sent: " + markup},
	)
	p := open(t, serve(t, ollamaModel(srv.Host(), "qwen3:4b")))
	p.send("Send a tricky email")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	p.screenshot("markup")
	if n := eval[int](p, `document.querySelectorAll('#chat img, #chat script, #chat b, #input-dialog img').length`); n != 0 {
		t.Errorf("the model's markup made %d elements", n)
	}
	turn := p.turns()[0]
	r1 := turn.Rounds[0]
	contains(t, "thinking", step(t, r1, "thinking").Body, "<b>bold</b> "+markup)
	contains(t, "raw output", step(t, r1, "raw").Body, markup)
	call := step(t, r1, "call")
	contains(t, "the subject argument", call.Args["subject"], markup)
	contains(t, "the body argument", call.Args["body"], "<script>alert(2)</script>")
	contains(t, "the answer", step(t, turn.Rounds[1], "answer").Body, "Sent: "+markup)
}

// TestInvalidCall shows a call whose JSON is broken: its raw text and the
// reason the model is told.
func TestInvalidCall(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	const broken = `{"name": "send_mail", "arguments": {"to": }}`
	srv.Reply(
		ollamatest.Reply{Text: "<tool_call>\n" + broken + "\n</tool_call>"},
		ollamatest.Reply{Text: "I could not send it."},
	)
	p := open(t, serve(t, ollamaModel(srv.Host(), "qwen3:4b")))
	p.send("Send an email to john@example.com")
	p.waitEnd(1)
	p.screenshot("invalid-call")
	turn := p.turns()[0]
	invalid := step(t, turn.Rounds[0], "call-invalid")
	contains(t, "the invalid call", invalid.Title, "Invalid tool call")
	contains(t, "the invalid call", invalid.Body, broken)
	contains(t, "the invalid call's reason", invalid.Body, "the call is not valid JSON")
	contains(t, "the response", step(t, turn.Rounds[0], "response").Body, `{"error":"the call is not valid JSON`)
	contains(t, "the answer", step(t, turn.Rounds[1], "answer").Body, "I could not send it.")
}

// TestPendingText holds a reply on a partial tag: the page shows what the
// parser holds back, apart from the rest.
func TestPendingText(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Reply(ollamatest.Reply{
		Text: "Let me check <tool_",
		Split: func(s string) []string {
			if before, after, ok := strings.Cut(s, "<"); ok {
				return []string{before, "<" + after}
			}
			return nil // the reply has no thinking
		},
		Hold: true,
	})
	p := open(t, serve(t, ollamaModel(srv.Host(), "qwen3:4b")))
	p.send("Check something")
	p.waitFor("held-back text", `document.querySelector('.step-raw [data-slot=pending]')?.textContent === '<tool_'`)
	p.screenshot("pending")
	meta := eval[string](p, `document.querySelector('.step-raw [data-slot=meta]').textContent`)
	contains(t, "the raw output's meta", meta, "holding back 6 characters")
	if got := eval[string](p, `getComputedStyle(document.querySelector('.step-raw .pending'), '::after').content`); !strings.Contains(got, "held back by the parser") {
		t.Errorf("the held-back text is not labelled: ::after content is %s", got)
	}
	if got, want := kinds(p.turns()[0].Rounds[0]), []string{"send", "raw", "answer"}; !equal(got, want) {
		t.Errorf("steps = %v, want %v", got, want)
	}
	p.do(chromedp.Click(chromedp.ID("stop")))
	if reason := p.waitEnd(1); reason != agent.Cancelled {
		t.Fatalf("the run ended %q", reason)
	}
}

// TestErrorsSayWhatToDo makes the backend fail and checks that the page
// says where, and what to do next.
func TestErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		settings func(t *testing.T) engine.Settings
		next     string
	}{
		{"model not pulled", func(t *testing.T) engine.Settings {
			return ollamaModel(ollamatest.New(t).Host(), "llama9:1b")
		}, "run 'ollama pull llama9:1b'"},
		{"Ollama not running", func(t *testing.T) engine.Settings {
			return ollamaModel(nettest.ClosedAddress(t), "qwen3:4b")
		}, "start Ollama with 'ollama serve'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := open(t, serve(t, tt.settings(t)))
			p.waitFor("the health banner", `!document.getElementById('health').hidden`)
			contains(t, "the health banner", eval[string](p, `document.getElementById('health').innerText`), tt.next)

			p.send("Send an email to john@example.com about tomorrow's standup")
			if reason := p.waitEnd(1); reason != agent.Failed {
				t.Fatalf("the run ended %q, want %q", reason, agent.Failed)
			}
			p.screenshot("error-" + strings.ReplaceAll(tt.name, " ", "-"))
			failure := step(t, p.turns()[0].Rounds[0], "error")
			contains(t, "the error's place", failure.Meta, "round 1, while preparing the model's input")
			contains(t, "the error", failure.Body, "Next step: "+tt.next)
		})
	}
}

// TestChatModeParsedByOllama runs in chat mode with Ollama's own parser
// answering: the page says who parsed what, and that the prompt is
// rendered inside Ollama.
func TestChatModeParsedByOllama(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Reply(
		ollamatest.Reply{Thinking: "They want an email.", ToolCalls: []llm.ToolCall{{Name: "send_mail",
			Arguments: []byte(`{"to": "john@example.com", "subject": "Standup", "body": "See you."}`)}}},
		ollamatest.Reply{Text: "Sent."},
	)
	s := ollamaModel(srv.Host(), "qwen3:4b")
	s.Mode = llm.ModeChat
	p := open(t, serve(t, s))
	p.send("Email john@example.com")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	r1 := p.turns()[0].Rounds[0]
	contains(t, "thinking", step(t, r1, "thinking").Meta, "parsed by Ollama")
	contains(t, "the call", step(t, r1, "call").Meta, "parsed by Ollama")
	contains(t, "the round's input", step(t, r1, "send").Meta, "chat mode")

	sel := `document.querySelector('.round .view-input')`
	_ = eval[chromedp.Void](p, sel+`.click()`)
	p.waitFor("the LLM input dialog", `document.getElementById('input-dialog').open`)
	if !eval[bool](p, `document.getElementById('tab-prompt').disabled && !document.getElementById('input-messages').hidden`) {
		t.Error("in chat mode the dialog should show the message list, with no rendered prompt")
	}
	contains(t, "the dialog's note", eval[string](p, `document.getElementById('input-note').textContent`), "Chat mode")
}

// TestRefusedRequest sends a request the server refuses: its reason shows
// by the composer, and the message stays there to fix and send again.
func TestRefusedRequest(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	_ = eval[chromedp.Void](p, `document.getElementById('message').value = 'x'.repeat(70000)`)
	p.do(chromedp.Focus(chromedp.ID("message")), enter)
	p.waitFor("the refusal", `!document.getElementById('composer-error').hidden`)
	contains(t, "the refusal", eval[string](p, `document.getElementById('composer-error').textContent`), "the request body is too large")
	if n := eval[int](p, `document.getElementById('message').value.length`); n != 70000 {
		t.Errorf("the composer holds %d characters after the refusal, want the 70000 sent", n)
	}
	if n := eval[int](p, `document.querySelectorAll('#chat .turn').length`); n != 0 {
		t.Errorf("a refused request left %d turns", n)
	}
	if !eval[bool](p, `!document.getElementById('send').disabled && document.getElementById('stop').hidden`) {
		t.Error("the composer is not ready to send again")
	}
}

// TestLookIsRemembered toggles large type and the theme, and reloads.
func TestLookIsRemembered(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	before := eval[string](p, `document.documentElement.dataset.theme`)
	p.do(chromedp.Click(chromedp.ID("toggle-large")), chromedp.Click(chromedp.ID("toggle-theme")))
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	if !eval[bool](p, `document.documentElement.classList.contains('large')`) {
		t.Error("large type was not remembered")
	}
	if got := eval[string](p, `document.documentElement.dataset.theme`); got == before || got == "" {
		t.Errorf("the theme is %q after switching from %q and reloading", got, before)
	}
	if got := eval[string](p, `document.getElementById('toggle-large').getAttribute('aria-pressed')`); got != "true" {
		t.Errorf("the large type button says aria-pressed=%q", got)
	}
}

// TestMCPToolInThePipeline calls a tool of toolscope's calculator, served
// over streamable HTTP: the side panel groups it under its server, and the
// Executing card shows the JSON-RPC messages of the call.
func TestMCPToolInThePipeline(t *testing.T) {
	t.Parallel()
	handler, err := mcpserver.Handler(mcpserver.Calculator(), mcpserver.TransportHTTP)
	if err != nil {
		t.Fatal(err)
	}
	calc := httptest.NewServer(handler)
	t.Cleanup(calc.Close)
	srv := ollamatest.New(t)
	srv.Reply(
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"multiply\", \"arguments\": {\"a\": 15, \"b\": 27}}\n</tool_call>"},
		ollamatest.Reply{Text: "15 times 27 is 405."},
	)
	s := ollamaModel(srv.Host(), "qwen3:4b")
	s.MCP = []mcp.ServerSpec{
		{Name: "calculator", URL: calc.URL + "/mcp", Transport: mcp.TransportHTTP},
		{Name: "broken", URL: "http://" + nettest.ClosedAddress(t) + "/mcp", Transport: mcp.TransportHTTP},
	}
	p := open(t, serve(t, s))
	group := eval[string](p, `document.querySelector('.tool-group[data-source="mcp:calculator"]')?.textContent ?? ''`)
	contains(t, "the calculator's tool group", group, "MCP server calculator")
	contains(t, "the calculator's tool group", group, "multiply")
	contains(t, "the calculator's tool group", group, "MCP 2026-07-28")

	// Mark the broken server's state stale, to see the page refresh it.
	_ = eval[chromedp.Void](p, `document.querySelector('.tool-group[data-source="mcp:broken"] .badge').textContent = 'stale'`)
	p.send("What is 15 times 27?")
	p.waitEnd(1)
	p.screenshot("mcp-call")
	turn := p.turns()[0]
	exec := step(t, turn.Rounds[0], "exec")
	contains(t, "the MCP call's result", exec.Body, "405")
	contains(t, "the MCP call's JSON-RPC messages", exec.Body, `"method": "tools/call"`)
	contains(t, "the MCP call's JSON-RPC messages", exec.Body, "sent")
	contains(t, "the MCP call's JSON-RPC messages", exec.Body, "received")
	contains(t, "the MCP call's JSON-RPC messages", exec.Body, "(2 messages) · MCP 2026-07-28")
	contains(t, "the answer", step(t, turn.Rounds[1], "answer").Body, "405")

	// The page asks for the servers' state again after each run.
	p.waitFor("the broken server's state, refreshed after the run", `document.querySelector('.tool-group[data-source="mcp:broken"] .badge').textContent === 'failed'`)
}

// TestMarkersSplitAcrossChunks writes a call in the marker dialect, cut
// into 3-byte chunks: the raw output still shows the marker whole and
// highlighted, and the call runs.
func TestMarkersSplitAcrossChunks(t *testing.T) {
	t.Parallel()
	srv := ollamatest.New(t)
	srv.Reply(
		ollamatest.Reply{Text: ">>>CALL_FUNCTION<<< {\"name\": \"cancel_meeting\", \"arguments\": {\"title\": \"standup\", \"date\": \"2026-12-01\"}}",
			Split: llmtest.SplitEvery(3)},
		ollamatest.Reply{Text: "Cancelled."},
	)
	p := open(t, serve(t, ollamaModel(srv.Host(), "qwen3:4b")))
	_ = eval[chromedp.Void](p, `document.getElementById('set-dialect').value = 'marker'`)
	p.send("Cancel the standup meeting on 2026-12-01")
	p.waitEnd(1)
	marks := eval[[]string](p, `[...document.querySelectorAll('#chat .round')[0].querySelectorAll('.tok')].map(t => t.textContent)`)
	if !slices.Contains(marks, ">>>CALL_FUNCTION<<<") {
		t.Errorf("highlighted marks in the raw output = %q, want the whole marker", marks)
	}
	turn := p.turns()[0]
	contains(t, "the call", step(t, turn.Rounds[0], "exec").Body, `"status":"cancelled"`)
	contains(t, "the round's summary", step(t, turn.Rounds[0], "send").Meta, "marker calls")
}

// ---- layout: laptops, projectors, phones ---------------------------------

// Geometry checks: el is drawn and lies wholly inside the window, or
// inside the chat's scrolled view.
const (
	inWindow = `((el) => { if (!el) return false; const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= -1 && r.top >= -1 && r.right <= innerWidth + 1 && r.bottom <= innerHeight + 1; })`
	inChat = `((el) => { if (!el) return false; const r = el.getBoundingClientRect(), c = document.getElementById('chat').getBoundingClientRect();
  return r.height > 0 && r.top >= c.top - 1 && r.bottom <= c.bottom + 1; })`
)

// viewport resizes the tab's window, as a person resizing it would.
func (p *page) viewport(width, height int64) {
	p.t.Helper()
	p.do(chromedp.EmulateViewport(width, height))
}

// visible fails the test unless every element sel matches lies wholly
// inside the window.
func (p *page) visible(what, sel string) {
	p.t.Helper()
	out := eval[[]string](p, fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(el => !%s(el)).map(el => el.id || el.className)`, sel, inWindow))
	if n := eval[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n == 0 {
		p.t.Errorf("%s: nothing on the page matches %s", what, sel)
	}
	if len(out) > 0 {
		p.t.Errorf("%s: %v not wholly inside the %s window", what, out,
			eval[string](p, `innerWidth + '×' + innerHeight`))
	}
}

// TestPartialReply cuts a reply midway, with Stop and with an error: the
// text so far is a partial reply, labelled so, never a green answer.
func TestPartialReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  ollamatest.Reply
		reason agent.Reason
		title  string
		notice string // the notice's title, when the turn has one
	}{
		{"stopped", ollamatest.Reply{Text: "I couldn't find the", Hold: true}, agent.Cancelled, "Stopped: partial reply", "Stopped"},
		{"error", ollamatest.Reply{Text: "I couldn't find the", Error: "llama runner process has terminated"}, agent.Failed, "Cut off: partial reply", ""},
		{"length", ollamatest.Reply{Text: "I couldn't find the", DoneReason: "length"}, agent.CutOff, "Cut off: partial reply",
			"Cut off: the model reached its context or token limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := ollamatest.New(t)
			srv.Reply(tt.reply)
			p := open(t, serve(t, ollamaModel(srv.Host(), "qwen3:4b")))
			p.send("Find the meeting notes")
			if tt.reason == agent.Cancelled {
				p.waitFor("the reply so far", `document.querySelector('.step-answer [data-slot=text]')?.textContent === "I couldn't find the"`)
				p.do(chromedp.Click(chromedp.ID("stop")))
			}
			if reason := p.waitEnd(1); reason != tt.reason {
				t.Fatalf("the run ended %q, want %q", reason, tt.reason)
			}
			p.screenshot("partial-" + tt.name)
			round := p.turns()[0].Rounds[0]
			reply := step(t, round, "answer")
			if reply.Title != tt.title || reply.Body != "I couldn't find the" {
				t.Errorf("the cut reply reads %q: %q, want %q over the text so far", reply.Title, reply.Body, tt.title)
			}
			if tt.notice != "" {
				contains(t, "the notice", step(t, round, "notice").Title, tt.notice)
			}
			card := `document.querySelector('.step-answer')`
			if eval[bool](p, card+`.classList.contains('is-final')`) {
				t.Error("the cut reply is drawn as the final answer")
			}
			if eval[bool](p, card+`.querySelector('.step-icon path').getAttribute('d') === 'M3 8.5l3 3 7-7'`) {
				t.Error("the cut reply has the answer's check mark")
			}
			colour := func(v string) string {
				return eval[string](p, `(() => { const s = document.body.appendChild(document.createElement('span'));
  s.style.color = 'var(`+v+`)'; const c = getComputedStyle(s).color; s.remove(); return c; })()`)
			}
			edge := eval[string](p, card+` && getComputedStyle(`+card+`.querySelector('.step-card')).borderLeftColor`)
			if edge == colour("--answer") || edge != colour("--notice") {
				t.Errorf("the cut reply's edge is %s; want the notice colour %s, not the answer's %s", edge, colour("--notice"), colour("--answer"))
			}
		})
	}
}

// TestDemoBannerSaysWhyAndWhatNext starts as ./start.sh does, with no
// Ollama: the page says why it runs the demo model and what to do, and
// after the note is hidden the header still says "demo model".
func TestDemoBannerSaysWhyAndWhatNext(t *testing.T) {
	t.Parallel()
	closed := nettest.ClosedAddress(t)
	p := open(t, serve(t, engine.Settings{Backend: engine.BackendAuto, OllamaHost: closed, Model: "qwen3:4b", DemoDelay: 2 * time.Millisecond}))
	p.viewport(1280, 720)
	banner := eval[string](p, `document.getElementById('demo-banner').innerText`)
	contains(t, "the demo note", banner, "Chosen because Ollama was not ready: Ollama is not reachable at http://"+closed)
	contains(t, "the demo note", banner, "Next step: Start Ollama with 'ollama serve' and pull the model with 'ollama pull qwen3:4b', then restart toolscope (./start.sh)")
	if strings.Contains(banner, "--backend") {
		t.Errorf("the demo note points at a flag a ./start.sh user never typed: %q", banner)
	}
	p.screenshot("demo-banner")

	p.do(chromedp.Click(chromedp.ID("hide-banner")))
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	if eval[bool](p, inWindow+`(document.getElementById('demo-banner'))`) {
		t.Error("the demo note is back after hiding it and reloading")
	}
	p.visible("the demo badge", "#demo-badge")
	contains(t, "the demo badge", eval[string](p, `document.getElementById('demo-badge').innerText`), "demo model")
	p.do(chromedp.Click(chromedp.ID("demo-badge")))
	p.waitFor("the demo note to come back", inWindow+`(document.getElementById('demo-banner'))`)
}

// TestLargeTypeKeepsTheCardInView toggles large type on a finished run at
// 1280×720: the answer that was in view stays in view, a card read midway
// stays at the top, and large type leaves room for more than two cards.
func TestLargeTypeKeepsTheCardInView(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(10*time.Millisecond)))
	p.viewport(1280, 720)
	p.send("Send an email to john@example.com about tomorrow's standup")
	p.waitEnd(1)
	p.screenshot("laptop-1280x720")
	answer := `document.querySelector('.step-answer.is-final')`
	if !eval[bool](p, inChat+`(`+answer+`)`) {
		t.Fatal("the answer is not in view at the end of the run")
	}
	p.do(chromedp.Click(chromedp.ID("toggle-large")))
	p.waitFor("large type", `document.documentElement.classList.contains('large')`)
	if !eval[bool](p, inChat+`(`+answer+`)`) {
		t.Error("toggling large type scrolled the answer out of view")
	}
	p.screenshot("projector-large")
	// Compact cards: more than the two that fit before.
	cards := eval[int](p, `[...document.querySelectorAll('#chat .step')].filter(`+inChat+`).length`)
	if cards < 4 {
		t.Errorf("%d cards fit wholly in the chat at large type, want at least 4", cards)
	}
	p.do(chromedp.Click(chromedp.ID("toggle-side")))
	p.waitFor("the side panel to go", `getComputedStyle(document.getElementById('side')).display === 'none'`)
	p.screenshot("projector-large-no-panel")

	// Read from the Executing card, then switch back to normal type.
	exec := `document.querySelector('.step-exec')`
	_ = eval[chromedp.Void](p, `(() => { const c = document.getElementById('chat');
  c.scrollTop += `+exec+`.getBoundingClientRect().top - c.getBoundingClientRect().top; })()`)
	offset := func() float64 {
		return eval[float64](p, exec+`.getBoundingClientRect().top - document.getElementById('chat').getBoundingClientRect().top`)
	}
	before := offset()
	p.do(chromedp.Click(chromedp.ID("toggle-large")))
	p.waitFor("normal type", `!document.documentElement.classList.contains('large')`)
	if after := offset(); after < before-2 || after > before+2 {
		t.Errorf("the card being read moved from %.0f px to %.0f px below the chat's top", before, after)
	}
}

// TestSidePanelHides hides the side panel on a wide window: the chat takes
// its room, the composer offers Stop during a run, and a reload remembers.
func TestSidePanelHides(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(time.Minute)))
	p.viewport(1280, 720)
	side := `getComputedStyle(document.getElementById('side')).display`
	p.do(chromedp.Click(chromedp.ID("toggle-side")))
	p.waitFor("the side panel to go", side+` === 'none'`)
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	if eval[string](p, side) != "none" || eval[string](p, `document.getElementById('toggle-side').getAttribute('aria-expanded')`) != "false" {
		t.Fatal("the hidden side panel is back after a reload")
	}
	if w := eval[float64](p, `document.getElementById('chat').getBoundingClientRect().width`); w < 1270 {
		t.Errorf("the chat is %.0f px wide without the side panel, want the window's width", w)
	}
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	p.send("Send an email to john@example.com about tomorrow's standup")
	p.waitFor("the tool to start", `document.querySelector('.step-exec.is-live')`)
	p.waitFor("the composer's Stop", inWindow+`(document.getElementById('composer-stop')) && !document.getElementById('composer-stop').disabled`)
	p.do(chromedp.Click(chromedp.ID("composer-stop")))
	if reason := p.waitEnd(1); reason != agent.Cancelled {
		t.Fatalf("the run ended %q after the composer's Stop", reason)
	}
	p.do(chromedp.Click(chromedp.ID("toggle-side")))
	p.waitFor("the side panel to come back", side+` !== 'none'`)
}

// TestNarrowWindows runs a request at a tablet's and a phone's width: the
// header wraps with nothing cut off, the composer stays docked at the
// bottom while the run grows, and the side panel opens over the chat.
func TestNarrowWindows(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(3*time.Second))
	for _, width := range []int64{420, 700} {
		t.Run(strconv.FormatInt(width, 10), func(t *testing.T) {
			t.Parallel()
			p := open(t, url)
			p.viewport(width, 800)
			p.visible("the header", ".topbar button, .brand-name")
			p.visible("the demo note's button", "#hide-banner")
			if over := eval[int](p, `document.documentElement.scrollWidth - innerWidth`); over > 0 {
				t.Errorf("the page is %d px wider than the window", over)
			}
			p.send("Send an email to john@example.com about tomorrow's standup")
			p.waitFor("the tool to start", `document.querySelector('.step-exec.is-live')`)
			p.visible("the composer during the run", "#composer, #composer-stop")
			p.visible("the running tool", ".step-exec.is-live .step-head")
			p.screenshot(fmt.Sprintf("narrow-%d-running", width))
			if reason := p.waitEnd(1); reason != agent.Answered {
				t.Fatalf("the run ended %q", reason)
			}
			p.visible("the composer after the run", "#composer")
			if !eval[bool](p, inChat+`(document.querySelector('.step-answer.is-final'))`) {
				t.Error("the answer is not in view at the end of the run")
			}
			p.screenshot(fmt.Sprintf("narrow-%d", width))

			p.do(chromedp.Click(chromedp.ID("toggle-side")))
			p.visible("the side panel, opened", "#side")
			p.screenshot(fmt.Sprintf("narrow-%d-panel", width))
			p.do(chromedp.Click(chromedp.ID("toggle-side")))
			p.waitFor("the side panel to close", `getComputedStyle(document.getElementById('side')).display === 'none'`)
		})
	}
}

// TestViewerLinkWatchesTheOperator opens the viewer link as a student's
// device would, in a browser context with cookies of its own: the page
// has no composer, Stop, New conversation or settings, and the runs the
// operator starts play in it, live, follow-ups included.
func TestViewerLinkWatchesTheOperator(t *testing.T) {
	tokens := server.NewTokens()
	mail := toolstest.NewGate("send_mail")
	url := serveWith(t, demoModel(0), func(c *server.Config) { c.Access.Tokens = tokens }, engine.WithTools(mail.Tool()))
	operator := open(t, url+"/?token="+tokens.Operator)
	operator.waitFor("the share panel's QR code", `document.querySelector('.share-qr')?.naturalWidth > 0`)
	if link := eval[string](operator, `document.getElementById('share-url').textContent`); !strings.HasSuffix(link, "/?token="+tokens.Viewer) {
		t.Errorf("the share panel offers %q", link)
	}
	if href := eval[string](operator, `location.href`); strings.Contains(href, tokens.Operator) {
		t.Errorf("the operator's token stays in the address bar: %s", href)
	}

	student := openElsewhere(t, url+"/?token="+tokens.Viewer)
	for _, id := range []string{"composer", "message", "send", "stop", "composer-stop", "new-conversation", "settings", "share-url"} {
		if eval[bool](student, `!!document.getElementById('`+id+`')`) {
			t.Errorf("the viewer's page has #%s", id)
		}
	}

	operator.send("Send an email to john@example.com about tomorrow's standup")
	<-mail.Started
	// The tool waits until the viewer has seen it running.
	student.waitFor("the operator's run to play live", `document.querySelector('#chat .step-exec.is-live')`)
	mail.Release()
	operator.waitEnd(1)
	if reason := student.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the viewer saw the run end %q", reason)
	}
	operator.send("Send an email to alice@co.com about lunch")
	operator.waitEnd(2)
	student.waitEnd(2)
	seen, done := student.turns(), operator.turns()
	for i := range done {
		if seen[i].Message != done[i].Message || seen[i].Reason != done[i].Reason || !equal(kinds(seen[i].Rounds[0]), kinds(done[i].Rounds[0])) {
			t.Errorf("turn %d: the viewer saw %q %s %v, the operator %q %s %v", i+1,
				seen[i].Message, seen[i].Reason, kinds(seen[i].Rounds[0]), done[i].Message, done[i].Reason, kinds(done[i].Rounds[0]))
		}
	}
	student.screenshot("viewer")
	operator.screenshot("operator-share")
}

// serveWith is serve with a change to the server's config, and options
// for the engine.
func serveWith(t *testing.T, s engine.Settings, configure func(*server.Config), opts ...engine.Option) string {
	t.Helper()
	e, err := engine.Start(t.Context(), s, t.Output(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Hub: runs.NewHub(20), Engine: e}
	configure(&cfg)
	srv := server.New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("server shutdown: %v", err)
		}
		<-served
		e.Close()
	})
	return "http://" + ln.Addr().String()
}

// openElsewhere loads a page that has no composer, such as a viewer's, in
// a browser context of its own, as another device would.
func openElsewhere(t *testing.T, url string) *page {
	t.Helper()
	if browser == nil {
		t.Skip(noBrowser)
	}
	tab, closeTab := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(tab, tabTimeout)
	t.Cleanup(func() {
		cancel()
		closeTab()
	})
	p := &page{t: t, ctx: ctx, tab: tab}
	p.do(chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(url))
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	return p
}

// TestAPIRunPlaysInThePage starts a run through the OpenAI API, as an app
// would: the operator's Runs panel lists it, marked as the API's with the
// client's name, and clicking it plays it live with the whole pipeline.
func TestAPIRunPlaysInThePage(t *testing.T) {
	t.Parallel()
	settings := demoModel(6 * time.Second) // a slow tool keeps the run live
	url := serveWith(t, settings, func(cfg *server.Config) { cfg.APIStubs = true })
	p := open(t, url)
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(
			`{"model": "toolscope-demo", "messages": [{"role": "user", "content": "Email bob@example.com that I will be late"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "my-agent/1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- string(b)
	}()
	item := `document.querySelector('#run-list .run-item[data-source="api"]')`
	p.waitFor("the API run in the Runs panel", item)
	contains(t, "the API run's entry", eval[string](p, item+`.textContent`), "API · my-agent/1.0")
	contains(t, "the API run's entry", eval[string](p, item+`.textContent`), "Email bob@example.com")
	p.do(chromedp.Click(`#run-list .run-item[data-source="api"]`))
	p.waitFor("the tool to run live", `document.querySelector('#chat .turn')?.textContent.includes('send_mail')`)
	select {
	case body := <-answered:
		t.Fatalf("the API answered before the page saw the run live: %s", body)
	default:
	}
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the API run ended %q in the page", reason)
	}
	contains(t, "the API's answer", <-answered, `"finish_reason":"stop"`)
	p.screenshot("api-run")
}

// TestRecordingReplaysInThePage exports a run through the API and plays
// the file in another tab, with no model: a step at a time it draws the
// live run's cards, labelled as a recording, and asks the server nothing
// about the run. Play, pause and speed play it on; an older toolscope's
// file plays too, and a broken one gets an error that names its line.
func TestRecordingReplaysInThePage(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(300*time.Millisecond))
	p := open(t, url)
	p.send("Send an email to john@example.com about tomorrow's standup")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the live run ended %q", reason)
	}
	live := p.turns()[0]
	file, broken := exportRun(t, url)

	q := open(t, url)
	q.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{file}))
	q.waitFor("the recording banner", `!document.getElementById('recording-bar').hidden`)
	label := eval[string](q, `document.getElementById('recording-label').textContent`)
	if !strings.HasPrefix(label, "Recording · toolscope-demo") || !strings.HasSuffix(label, " · no model is running") {
		t.Errorf("the banner says %q", label)
	}
	contains(t, "the run status", eval[string](q, `document.getElementById('run-status').textContent`), "Recording · paused")
	q.do(chromedp.Click(chromedp.ID("replay-step")))
	if got := eval[[]turnView](q, readPipeline); len(got) != 1 || got[0].Message != live.Message || len(got[0].Rounds) != 0 {
		t.Fatalf("after one step the page shows %+v", got)
	}
	steps := eval[int](q, `(() => { const b = document.getElementById('replay-step'); let n = 0; while (!b.disabled) { b.click(); n++; } return n; })()`)
	if q.waitEnd(1); steps < 10 {
		t.Errorf("the recording played in %d steps", steps)
	}
	replayed := q.turns()[0]
	if fmt.Sprint(replayed) != fmt.Sprint(live) {
		t.Errorf("the recording's cards differ from the live run's:\nreplayed %+v\nlive     %+v", replayed, live)
	}
	contains(t, "the run status", eval[string](q, `document.getElementById('run-status').textContent`), "Recording · finished")
	asked := eval[[]string](q, `performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/runs/'))`)
	if len(asked) > 0 {
		t.Errorf("the replay asked the server for %v", asked)
	}
	q.screenshot("recording")

	// An older toolscope's file (no dialect marks), played on at 4×.
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "recording", "testdata", "recording-v1.jsonl"))
	q.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{fixture}),
		chromedp.SetValue(chromedp.ID("replay-speed"), "4"))
	q.waitFor("the older recording", `document.getElementById('replay-progress').textContent.startsWith('event 0 of')`)
	toggled := eval[[]string](q, `(() => { const b = document.getElementById('replay-play'), s = document.getElementById('run-status');
		b.click(); const playing = s.textContent; b.click(); return [playing, s.textContent, b.textContent]; })()`)
	if !strings.HasPrefix(toggled[0], "Recording · playing") || !strings.HasPrefix(toggled[1], "Recording · paused") || toggled[2] != "Play" {
		t.Errorf("play then pause: %q", toggled)
	}
	q.do(chromedp.Click(chromedp.ID("replay-play")))
	if reason := q.waitEnd(1); reason != agent.Answered {
		t.Errorf("the older recording ended %q", reason)
	}

	q.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{broken}))
	q.waitFor("the error", `!document.getElementById('recording-error').hidden`)
	contains(t, "the error", eval[string](q, `document.getElementById('recording-error').textContent`), "broken.jsonl: line 3 is not an event: ")
}

// exportRun saves the newest run's export, and a copy broken on line 3,
// and returns their paths.
func exportRun(t *testing.T, url string) (file, broken string) {
	t.Helper()
	resp, err := http.Get(url + "/api/runs")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Runs []runs.Summary }
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Runs) == 0 {
		t.Fatalf("GET /api/runs: %v %+v", err, list)
	}
	resp, err = http.Get(url + "/api/runs/" + list.Runs[0].ID + "/export")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %s", resp.StatusCode, body)
	}
	dir := t.TempDir()
	file, broken = filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "broken.jsonl")
	lines := strings.SplitAfter(string(body), "\n")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte(strings.Join(lines[:2], "")+"{\"seq\": 2, \"type\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, broken
}

// TestChoosingToolsCard connects an MCP server with the 1,190-tool test
// catalogue: each request gets a "Choosing tools" card first, the side
// panel marks what the run offered, and the page's "Tools offered"
// setting changes k for the next request.
func TestChoosingToolsCard(t *testing.T) {
	ts, err := retrievetest.ReadCatalogue(filepath.Join("..", "..", "tools", "retrieve", "testdata", "catalogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	catalogue := retrievetest.MCPServer(ts, 100)
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return catalogue }, nil))
	t.Cleanup(h.Close)
	s := demoModel(0)
	s.ToolsTopK = engine.ToolsTopKAuto
	s.MCP = []mcp.ServerSpec{{Name: "catalogue", URL: h.URL}}
	p := open(t, serve(t, s))
	all := len(ts) + 3 // and the stubs

	p.send("Send an email to ann@example.com saying hello")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	round := p.turns()[0].Rounds[0]
	if k := kinds(round); len(k) == 0 || k[0] != "tools" {
		t.Fatalf("round 1's cards are %v, want the tools card first", k)
	}
	card := step(t, round, "tools")
	contains(t, "the card's title", card.Title, "Choosing tools")
	contains(t, "the card's counts", card.Meta, fmt.Sprintf("lexical retrieval · k = %d · ", engine.AutoTopK))
	contains(t, "the card", card.Body, "send_mail")
	chosen := eval[[]string](p, `[...document.querySelectorAll('#chat .step-tools .chosen-tool code')].map(c => c.textContent)`)
	if len(chosen) == 0 || len(chosen) > engine.AutoTopK || !slices.Contains(chosen, "send_mail") {
		t.Fatalf("chosen tools %v", chosen)
	}
	leftOut := eval[[]string](p, `[document.querySelector('#chat .step-tools .left-out summary').textContent,
		String(document.querySelectorAll('#chat .step-tools .left-out-list li').length)]`)
	if leftOut[0] != fmt.Sprintf("%s tools left out", humanCount(all-len(chosen))) || leftOut[1] != strconv.Itoa(agent.MaxLeftOutNames+1) {
		t.Errorf("left out: %q, want %d names and a line for the rest", leftOut, agent.MaxLeftOutNames)
	}
	if calls := step(t, round, "call"); !strings.Contains(calls.Body, "send_mail") {
		t.Errorf("the demo model did not call send_mail: %+v", calls)
	}
	marked := eval[[]int](p, `[document.querySelectorAll('.tools > li.is-offered').length, document.querySelectorAll('.tools > li.is-left-out').length]`)
	if marked[0] != len(chosen) || marked[1] != all-len(chosen) {
		t.Errorf("side panel marks %v offered / left out, want %d / %d", marked, len(chosen), all-len(chosen))
	}
	_ = eval[chromedp.Void](p, `document.querySelector('#chat .step-tools').scrollIntoView()`)
	p.screenshot("choosing-tools")

	p.do(chromedp.SetValue(chromedp.ID("set-tools-top-k"), "3"))
	p.send("Schedule a meeting with the team tomorrow")
	p.waitEnd(2)
	card = step(t, p.turns()[1].Rounds[0], "tools")
	contains(t, "the second card's counts", card.Meta, "k = 3 · ")
	kept := eval[[]string](p, `[...document.querySelectorAll('#chat .chosen-tool.is-kept code')].map(c => c.textContent)`)
	if !slices.Contains(kept, "send_mail") {
		t.Errorf("send_mail, called before, must be kept: %v", kept)
	}
}

// humanCount writes n as the page does, with a thousands separator.
func humanCount(n int) string {
	s := strconv.Itoa(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// TestRerunFromARoundInThePage reruns round 2 of a finished run with
// another call format: the new run shows its lineage, starts with the
// system prompt of the format chosen, and its lineage link shows the run
// it came from.
//
// The dialog starts from the run's own settings, not the Settings panel's
// as they stand now, and the rerun keeps those it does not show.
func TestRerunFromARoundInThePage(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	p.do(chromedp.SetValue(chromedp.ID("set-dialect"), "pythonic"), chromedp.SetValue(chromedp.ID("set-max-rounds"), "7"))
	p.send("Send an email to john@example.com about tomorrow's standup")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	p.do(chromedp.SetValue(chromedp.ID("set-dialect"), "hermes"), chromedp.SetValue(chromedp.ID("set-max-rounds"), "3"))
	p.do(chromedp.Click(chromedp.CSS(`#chat .round:nth-child(2) .rerun-button`)))
	p.waitFor("the rerun dialog", `document.getElementById('rerun-dialog').open`)
	contains(t, "the rerun dialog's title", eval[string](p, `document.getElementById('rerun-title').textContent`), "round 2")
	contains(t, "the messages to rerun", eval[string](p, `document.getElementById('rerun-messages').value`), "<tool_response>")
	if got := eval[string](p, `document.getElementById('rerun-dialect').value`); got != "pythonic" {
		t.Errorf("the rerun dialog offers dialect %q, want the run's own, pythonic", got)
	}
	p.do(chromedp.SetValue(chromedp.ID("rerun-dialect"), "marker"),
		chromedp.Click(chromedp.CSS(`#rerun-dialog [data-slot="start"]`)))
	p.waitFor("the rerun's lineage", `document.querySelector('#chat .turn .lineage')?.textContent.includes('at round 2')`)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the rerun ended %q", reason)
	}
	contains(t, "the rerun's first round", eval[string](p, `document.querySelector('#chat .round').textContent`), "marker calls")
	rounds, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`(async () => {
  const runs = (await (await fetch('/api/runs')).json()).runs;
  const events = await (await fetch('/api/runs/' + runs[0].id + '/events')).text();
  return JSON.parse(events.split('\n').find((l) => l.startsWith('data:')).slice(5)).run.settings.max_rounds;
})()`, chromedp.EvalAwaitPromise))
	if err != nil || rounds != 7 {
		t.Errorf("the rerun's max_rounds = %v (%v), want the run's own 7, not the panel's 3", rounds, err)
	}
	p.screenshot("rerun")
	p.do(chromedp.Click(chromedp.CSS(`#chat .lineage button`)))
	p.waitFor("the original run", `!document.querySelector('#chat .lineage') && document.querySelector('#chat .turn [data-slot=end]:not([hidden])')`)
	contains(t, "the original's first round", eval[string](p, `document.querySelector('#chat .round').textContent`), "pythonic calls")
}

// TestCompareTwoRunsInThePage asks for one request in two call formats
// and compares the runs from the Runs panel: each round's LLM input is a
// diff in which the old format's instructions are removed and the new
// one's added.
func TestCompareTwoRunsInThePage(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	for _, dialect := range []string{"hermes", "marker"} {
		runDialect(t, url, dialect)
	}
	p := open(t, url)
	p.waitFor("both runs, finished, in the Runs panel", `[...document.querySelectorAll('#run-list .run-state')].filter((s) => s.textContent.startsWith('answered')).length === 2`)
	p.do(chromedp.Click(chromedp.CSS(`#run-list li:nth-child(1) .compare-pick input`)), chromedp.Click(chromedp.CSS(`#run-list li:nth-child(2) .compare-pick input`)))
	p.do(chromedp.Click(chromedp.CSS(`.compare-button`)))
	p.waitFor("the compared rounds", `document.querySelectorAll('#compare-dialog .compare-round').length === 2`)
	lines := func(class string) string {
		return eval[string](p, `[...document.querySelectorAll('#compare-dialog .`+class+`')].map((l) => l.textContent).join('')`)
	}
	removed, added := lines("diff-del"), lines("diff-add")
	// The runs are listed newest first: the marker run is A, hermes B.
	contains(t, "the lines the diff removes", removed, "write >>>CALL_FUNCTION<<< followed by a json object")
	contains(t, "the lines the diff adds", added, "<tool_call>")
	if strings.Contains(removed+added, "Send an email") {
		t.Errorf("the request, the same in both runs, is marked as changed:\n%s\n%s", removed, added)
	}
	contains(t, "the compared calls", eval[string](p, `document.querySelector('#compare-dialog .compare-calls').textContent`), "send_mail")
	contains(t, "the counters", eval[string](p, `document.querySelector('#compare-dialog .compare-round .compare-side').textContent`), "output ")
	p.screenshot("compare")
}

// recordLoopMap keeps, in window.lit, each state the loop map takes (its
// lit step, the tool named under Tool, its round) beside the kind of the
// newest card in the chat: it reads both after each run event is drawn,
// so each entry says what the map showed for what had arrived.
const recordLoopMap = `(() => {
  const map = document.getElementById('loop-map');
  window.lit = [];
  const note = () => {
    const cards = [...document.querySelectorAll('#chat .round')].at(-1)?.querySelectorAll('.step') ?? [];
    const card = [...cards].at(-1);
    const s = {
      step: map.querySelector('[aria-current]')?.dataset.step ?? '',
      tool: map.querySelector('[data-slot=tool]').textContent,
      round: map.querySelector('[data-slot=round]').textContent,
      card: card ? [...card.classList].find(c => c.startsWith('step-')).slice(5) + (card.matches('.is-final') ? ' final' : '') : '',
    };
    const last = window.lit.at(-1);
    if (!last || last.step !== s.step || last.tool !== s.tool || last.round !== s.round) window.lit.push(s);
  };
  document.getElementById('chat').addEventListener('run-event', note);
})()`

type litStep struct{ Step, Tool, Round, Card string }

// TestPresenterMode presents a demo run at 1280×720: large type, no side
// panel or note but the "demo model" badge, and a loop map that lights
// each step as its events arrive and stays in sight when the chat
// scrolls. At the end the whole current round is in view, the round
// before folded. Esc still stops a live run, and otherwise leaves; P
// comes back, and a reload remembers.
func TestPresenterMode(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(2*time.Second)))
	p.viewport(1280, 720)
	p.do(chromedp.Click(chromedp.ID("toggle-present")))
	p.waitFor("presenter mode", `document.documentElement.classList.contains('presenting')`)
	for _, want := range []string{"large", "side-hidden", "banner-hidden"} {
		if !eval[bool](p, `document.documentElement.classList.contains('`+want+`')`) {
			t.Errorf("presenter mode has no %s", want)
		}
	}
	p.visible("the demo badge", "#demo-badge")
	p.visible("the loop map", "#loop-map")

	_ = eval[chromedp.Void](p, recordLoopMap)
	p.send("Send an email to john@example.com about tomorrow's standup")
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	checkLoopMap(t, eval[[]litStep](p, `window.lit`))

	current := `[...[...document.querySelectorAll('#chat .round')].at(-1).querySelectorAll('.step')]`
	p.waitFor("the current round's cards in view", current+`.every(`+inChat+`)`)
	p.visible("the current round's cards", "#chat .round:last-child .step")
	if open := eval[int](p, `document.querySelectorAll('#chat .round')[0].querySelectorAll('details.step-card[open]').length`); open > 0 {
		t.Errorf("%d cards of the finished round 1 are still open", open)
	}
	p.screenshot("presenter-end")
	// Scroll up as a person does, with the wheel over the chat's margin (over a card, a card's own scroller may take it).
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// A DeltaX of 0 would be left out of the call, which Chromium refuses.
		wheel := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseWheel, X: 10, Y: 300, DeltaX: 1, DeltaY: -5000}
		_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, wheel)
		return err
	}))
	p.waitFor("the first request in view", inChat+`(document.querySelector('#chat .user-msg'))`)
	p.visible("the loop map after scrolling", "#loop-map")
	// Headless Chromium's screenshot can show a scrolled box's old frame until the box repaints.
	_ = eval[chromedp.Void](p, `document.getElementById('chat').style.outline = '1px solid transparent'`)
	p.screenshot("presenter-scrolled")

	// Esc stops a live run, and presenter mode stays. The tool takes a
	// minute, so the run is live when Esc comes however slow the machine.
	p.do(chromedp.SetValue(chromedp.ID("set-tool-delay"), "60"))
	p.send("Cancel the standup meeting on 2026-12-01")
	p.waitFor("the tool to start", `document.querySelector('.step-exec.is-live')`)
	p.waitFor("the composer's Stop", `!document.getElementById('composer-stop').disabled`)
	p.waitFor("the running round's cards in view", `document.querySelector('.step-exec.is-live') && `+current+`.every(`+inChat+`)`)
	p.screenshot("presenter-tool")
	p.do(chromedp.KeyEvent(kb.Escape))
	if reason := p.waitEnd(2); reason != agent.Cancelled {
		t.Fatalf("Esc during the run ended it %q, want %q", reason, agent.Cancelled)
	}
	if !eval[bool](p, `document.documentElement.classList.contains('presenting')`) {
		t.Error("Esc that stopped a run also left presenter mode")
	}
	if got := eval[string](p, `document.getElementById('loop-map').dataset.end`); got != "cancelled" {
		t.Errorf("the loop map says the run ended %q, want cancelled", got)
	}

	// With no run live, Esc leaves; P, outside a text field, comes back.
	p.do(chromedp.KeyEvent(kb.Escape))
	p.waitFor("presenter mode to end", `!document.documentElement.classList.contains('presenting')`)
	if eval[bool](p, `document.documentElement.classList.contains('large') || document.documentElement.classList.contains('side-hidden')`) {
		t.Error("leaving presenter mode kept its large type or hidden panel, which were never chosen")
	}
	_ = eval[chromedp.Void](p, `document.activeElement.blur()`)
	p.do(chromedp.KeyEvent("p"))
	p.waitFor("presenter mode again", `document.documentElement.classList.contains('presenting')`)
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	if !eval[bool](p, `document.documentElement.classList.contains('presenting') && document.getElementById('toggle-present').getAttribute('aria-pressed') === 'true'`) {
		t.Error("presenter mode was not remembered")
	}

	// A recording, stepped event by event, lights the map the same way.
	// The reload draws the stopped run again from its events first, and
	// the page opens no recording while it does.
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	p.waitFor("the stopped run redrawn", `document.getElementById('loop-map').dataset.end === 'cancelled' && document.getElementById('composer-stop').hidden`)
	_ = eval[chromedp.Void](p, recordLoopMap)
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "recording", "testdata", "recording-v1.jsonl"))
	p.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{fixture}))
	p.waitFor("the recording", `!document.getElementById('recording-bar').hidden && !document.getElementById('replay-step').disabled`)
	_ = eval[int](p, `(() => { const b = document.getElementById('replay-step'); let n = 0; while (!b.disabled) { b.click(); n++; } return n; })()`)
	p.waitEnd(1)
	checkLoopMap(t, eval[[]litStep](p, `window.lit`))
}

// checkLoopMap checks what recordLoopMap kept of a run of the email
// request: each step the map lit matches the newest card, it lit Model,
// Tool call, Tool (naming send_mail), Response, Model and Answer in
// order, and its round counter ends at round 2.
func checkLoopMap(t *testing.T, lit []litStep) {
	t.Helper()
	// The step each kind of newest card belongs to.
	stepOf := map[string]string{"tools": "request", "send": "model", "thinking": "model", "raw": "model", "answer": "model",
		"call-live": "call", "call": "call", "exec": "tool", "response": "response", "answer final": "answer"}
	var steps []string
	for _, s := range lit {
		if s.Card != "" && stepOf[s.Card] != s.Step {
			t.Errorf("the loop map lit %q (%s) when the newest card was %q", s.Step, s.Round, s.Card)
		}
		if s.Step == "tool" && s.Tool != "" && s.Tool != "send_mail" {
			t.Errorf("the loop map names the tool %q, want send_mail", s.Tool)
		}
		if len(steps) == 0 || steps[len(steps)-1] != s.Step {
			steps = append(steps, s.Step)
		}
	}
	want := []string{"model", "call", "tool", "response", "model", "answer"}
	if !isSubsequence(want, steps) {
		t.Errorf("the loop map lit %v, want %v in that order", steps, want)
	}
	if !slices.ContainsFunc(lit, func(s litStep) bool { return s.Step == "tool" && s.Tool == "send_mail" && s.Card == "exec" }) {
		t.Errorf("the loop map never named send_mail under Tool while it ran: %+v", lit)
	}
	if len(lit) == 0 || lit[len(lit)-1].Round != "round 2" {
		t.Errorf("the loop map's round counter does not end at round 2: %+v", lit)
	}
}

// isSubsequence says whether want appears in got in order, gaps allowed.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestStepThroughARun runs the email request in step mode: at the call it
// changes the subject, and the tool runs with it, and round 2 reads back
// the edited call; then, in a second run, it fakes the tool's result as
// an error, and the model's next round reads the error and tells the
// user. All along the status line says what a pause waits for, and that
// the run runs again once it goes on.
func TestStepThroughARun(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	p.do(chromedp.Click(chromedp.ID("set-step")))
	p.recordStatus()
	const newSubject = "Standup moved to 10:30"
	p.send("Send an email to john@example.com about tomorrow's standup")
	p.stepTo(1, "input")
	p.statusSays("Paused · round 1 · before the model call")
	p.screenshot("step-input")
	p.continueWithSpace()
	p.stepTo(1, "call")
	p.statusSays("Paused · round 1 · before send_mail runs")
	p.clickStep("Edit arguments")
	_ = eval[chromedp.Void](p, `(() => {
  const box = document.querySelector('#chat .is-paused .step-controls .step-edit');
  const args = JSON.parse(box.value);
  args.subject = `+"`"+newSubject+"`"+`;
  box.value = JSON.stringify(args);
})()`)
	p.screenshot("step-call")
	p.clickStep("Run with these arguments")
	p.stepTo(1, "response")
	p.statusSays("Paused · round 1 · before the response goes back")
	p.continueWithSpace()
	p.stepTo(1, "input") // round 2
	p.statusSays("Paused · round 2 · before the model call")
	// The model reads back the call that ran, written as it writes calls.
	contains(t, "round 2's input", eval[string](p, `document.querySelector('#chat .is-paused .step-edit').value`),
		`"subject": "`+newSubject+`"`)
	p.continueWithSpace()
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stepped run ended %q", reason)
	}
	want := []string{"Paused · round 1 · before the model call", "Running · round 1", "Paused · round 1 · before send_mail runs",
		"Running · round 1", "Paused · round 1 · before the response goes back", "Running · round 1",
		"Paused · round 2 · before the model call", "Running · round 2", "Ready"}
	if got := eval[[]string](p, `window.statuses`); !isSubsequence(want, got) {
		t.Errorf("the status line said %q, want %q in that order", got, want)
	}
	first := p.turns()[0].Rounds[0]
	contains(t, "the parsed call", step(t, first, "call").Body, "Standup") // as the model wrote it
	contains(t, "the executed call", step(t, first, "exec").Body, newSubject)
	p.markedEdited("step-call", "step-exec")
	was := eval[string](p, `document.querySelector('#chat .step-call .edited-badge').title`)
	contains(t, "what the edited call was", was, `"subject"`)
	contains(t, "where the edited call went", was, "The conversation holds the edited call")
	if n := eval[int](p, `document.querySelectorAll('#chat .step-controls, #chat .is-paused').length`); n != 0 {
		t.Errorf("%d step controls are left once the run has ended", n)
	}

	// A faked error: the tool does not run, the model reads the error.
	const failure = "SMTP server unreachable"
	p.do(chromedp.Click(chromedp.ID("new-conversation")))
	p.send("Send an email to john@example.com about tomorrow's standup")
	p.stepTo(1, "input")
	p.continueWithSpace()
	p.stepTo(1, "call")
	p.clickStep("Fake result")
	p.do(chromedp.SendKeys(chromedp.CSS(`#chat .is-paused .step-edit`), failure),
		chromedp.Click(chromedp.CSS(`#chat .is-paused .step-controls input[type=checkbox]`)))
	p.clickStep("Send this result")
	p.stepTo(1, "response")
	contains(t, "the response waiting to go back", eval[string](p, `document.querySelector('#chat .is-paused .step-edit').value`), failure)
	p.continueWithSpace()
	p.stepTo(1, "input")
	p.continueWithSpace()
	p.waitEnd(1)
	p.screenshot("step-faked-error")
	rounds := p.turns()[0].Rounds
	faked := step(t, rounds[0], "exec")
	contains(t, "the faked call's card", faked.Title, "Faked error of send_mail")
	if faked.Meta != "faked" {
		t.Errorf("the faked call's card shows %q where a tool's time goes, want \"faked\"", faked.Meta)
	}
	p.markedEdited("step-exec")
	contains(t, "the faked error", faked.Body, failure)
	contains(t, "the model's answer", step(t, rounds[len(rounds)-1], "answer").Body, failure)
}

// recordStatus keeps each text the side panel's status line shows, in
// window.statuses, for statusSays and for a test to read.
func (p *page) recordStatus() {
	p.t.Helper()
	_ = eval[chromedp.Void](p, `(() => {
  const status = document.getElementById('run-status');
  window.statuses = [status.textContent];
  new MutationObserver(() => {
    if (window.statuses.at(-1) !== status.textContent) window.statuses.push(status.textContent);
  }).observe(status, { childList: true, characterData: true, subtree: true });
})()`)
}

// statusSays checks the status line now, and its dot's tone for a pause.
func (p *page) statusSays(want string) {
	p.t.Helper()
	got := eval[[]string](p, `[document.getElementById('run-status').textContent, document.getElementById('run-dot').dataset.tone]`)
	if got[0] != want || strings.HasPrefix(want, "Paused") && got[1] != "paused" {
		p.t.Errorf("the status line says %q (tone %q), want %q", got[0], got[1], want)
	}
}

// markedEdited checks that the first card of each kind (class) in the
// first turn wears the "edited" badge.
func (p *page) markedEdited(kinds ...string) {
	p.t.Helper()
	for _, kind := range kinds {
		if !eval[bool](p, fmt.Sprintf(`Boolean(document.querySelector('#chat .turn .%s .step-head .edited-badge'))`, kind)) {
			p.t.Errorf("the %s card is not marked edited", kind)
		}
	}
}

// stepTo waits until turn n is paused at (input, call or response) with
// its controls ready.
func (p *page) stepTo(n int, at string) {
	p.t.Helper()
	cards := map[string]string{"input": ".step-send", "call": ".step-call", "response": ".step-pause"}
	p.waitFor("a pause at "+at, fmt.Sprintf(`document.querySelectorAll('#chat .turn')[%d]?.querySelector('%s.is-paused .step-controls:not(.is-busy)')`, n-1, cards[at]))
}

// continueWithSpace presses Space outside any text field.
func (p *page) continueWithSpace() {
	p.t.Helper()
	_ = eval[chromedp.Void](p, `document.activeElement?.blur()`)
	p.do(chromedp.KeyEvent(" "))
}

// clickStep clicks the paused card's button labelled label.
func (p *page) clickStep(label string) {
	p.t.Helper()
	ok := eval[bool](p, fmt.Sprintf(`(() => {
  const b = [...document.querySelectorAll('#chat .is-paused .step-controls button')].find((b) => b.textContent === %q);
  b?.click();
  return Boolean(b);
})()`, label))
	if !ok {
		p.screenshot("failed-step-" + strings.ReplaceAll(label, " ", "-"))
		p.t.Fatalf("no %q button at the pause", label)
	}
}
