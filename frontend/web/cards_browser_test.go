package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
)

// TestKeysGoToThePageOutsideTheComposer presses the page's keys as a
// person does, with no blur first: P presents on a page just loaded, while
// typing "Please" in the composer types a P, Esc leaves the composer so P
// presents again, "/" goes back to it, and at a step-mode pause Space
// continues the run rather than typing a space into the composer that
// sent the request.
func TestKeysGoToThePageOutsideTheComposer(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	presenting := `document.documentElement.classList.contains('presenting')`
	composer := `document.getElementById('message')`

	p.do(chromedp.KeyEvent("p"))
	p.waitFor("presenter mode, from P on a page just loaded", presenting)
	if got := eval[string](p, composer+`.value`); got != "" {
		t.Errorf("P on a page just loaded typed %q into the composer", got)
	}
	p.do(chromedp.KeyEvent("p"))
	p.waitFor("presenter mode to end", `!`+presenting)

	p.do(chromedp.Click(chromedp.ID("message")), chromedp.KeyEvent("Please wait"))
	if got := eval[string](p, composer+`.value`); got != "Please wait" || eval[bool](p, presenting) {
		t.Errorf("typing in the composer gave %q (presenting: %v), want the text and no presenter mode", got, eval[bool](p, presenting))
	}
	p.do(chromedp.KeyEvent(kb.Escape))
	if eval[bool](p, `document.activeElement === `+composer) {
		t.Error("Esc with no run left the focus in the composer")
	}
	p.do(chromedp.KeyEvent("p"))
	p.waitFor("presenter mode, from P after Esc", presenting)
	p.do(chromedp.KeyEvent("p"), slash)
	p.waitFor("the composer, from /", `document.activeElement === `+composer)
	if got := eval[string](p, composer+`.value`); got != "Please wait" {
		t.Errorf("after Esc, P and / the composer holds %q, want what was typed", got)
	}

	// Step mode: the request goes from the composer, and Space continues each pause.
	_ = eval[chromedp.Void](p, composer+`.value = ''`)
	p.do(chromedp.Click(chromedp.ID("set-step")))
	p.send(emailRequest)
	for _, at := range []string{"input", "call", "response", "input"} {
		p.stepTo(1, at)
		p.do(chromedp.KeyEvent(" "))
	}
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stepped run ended %q", reason)
	}
	if got := eval[string](p, composer+`.value`); got != "" {
		t.Errorf("Space at the pauses typed %q into the composer", got)
	}
}

// slash presses "/" as a keyboard does, like enter: chromedp.KeyEvent's
// "char" event would type it into the field the page just focused.
var slash = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "/", Code: "Slash", WindowsVirtualKeyCode: 191, NativeVirtualKeyCode: 191,
		})
		if err != nil {
			return err
		}
	}
	return nil
})

// TestEditedCallShowsWhatRan edits a call's subject at its pause: the
// Parsed tool call card then shows the subject the tool ran with, beside
// the one the model wrote, struck through, and its JSON is what ran.
func TestEditedCallShowsWhatRan(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	p.do(chromedp.Click(chromedp.ID("set-step")))
	const newSubject = "Standup moved to 10:30"
	p.send(emailRequest)
	p.stepTo(1, "input")
	p.continueWithSpace()
	p.stepTo(1, "call")
	p.clickStep("Edit arguments")
	_ = eval[chromedp.Void](p, `(() => {
  const box = document.querySelector('#chat .is-paused .step-controls .step-edit');
  box.value = JSON.stringify({ ...JSON.parse(box.value), subject: `+"`"+newSubject+"`"+` });
})()`)
	p.clickStep("Run with these arguments")
	for _, at := range []string{"response", "input"} {
		p.stepTo(1, at)
		p.continueWithSpace()
	}
	p.waitEnd(1)
	_ = eval[chromedp.Void](p, `document.querySelector('#chat .step-call').scrollIntoView()`)
	p.screenshot("edited-call")
	card := `document.querySelector('#chat .step-call')`
	subject := eval[map[string]string](p, `(() => {
  const row = [...`+card+`.querySelectorAll('.args tbody tr')].find((tr) => tr.cells[0].textContent === 'subject');
  return { now: row?.querySelector('.arg-now')?.textContent ?? '', was: row?.querySelector('del.arg-was')?.textContent ?? '',
    to: [...`+card+`.querySelectorAll('.args tbody tr')].find((tr) => tr.cells[0].textContent === 'to')?.cells[1].textContent ?? '' };
})()`)
	if subject["now"] != newSubject || subject["was"] != "Standup" {
		t.Errorf("the edited subject reads %q was → %q now, want %q → %q", subject["was"], subject["now"], "Standup", newSubject)
	}
	if subject["to"] != "john@example.com" {
		t.Errorf("the unchanged argument reads %q, want it as it was", subject["to"])
	}
	contains(t, "the call's JSON", eval[string](p, card+`.querySelector('[data-slot=json]').textContent`), `"subject": "`+newSubject+`"`)
	contains(t, "the call's note", eval[string](p, card+`.querySelector('[data-slot=edited-note]:not([hidden])')?.textContent ?? ''`), "ran with these arguments")
}

// TestRoundsAreNamedForWhatTheyAre reruns a run from its round 2: the
// rerun's first round is round 2, in its header, the loop map and the
// status line, as it was in the run it came from. Then the run plays as
// a recording: its round in progress says "recorded", not "live".
func TestRoundsAreNamedForWhatTheyAre(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	p := open(t, url)
	p.send(emailRequest)
	p.waitEnd(1)
	file, _ := exportRun(t, url)

	p.recordStatus()
	p.do(chromedp.Click(chromedp.CSS(`#chat .round:nth-child(2) .rerun-button`)))
	p.waitFor("the rerun dialog", `document.getElementById('rerun-dialog').open`)
	p.do(chromedp.Click(chromedp.CSS(`#rerun-dialog [data-slot="start"]`)))
	p.waitFor("the rerun's lineage", `document.querySelector('#chat .turn .lineage')`)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the rerun ended %q", reason)
	}
	if got := eval[[]string](p, `[...document.querySelectorAll('#chat .round h3')].map((h) => h.textContent)`); !equal(got, []string{"Round 2"}) {
		t.Errorf("the rerun from round 2 shows rounds %q, want [Round 2]", got)
	}
	if got := eval[string](p, `document.querySelector('#loop-map [data-slot=round]').textContent`); got != "round 2" {
		t.Errorf("the loop map says %q for the rerun's first round, want round 2", got)
	}
	if got := eval[[]string](p, `window.statuses`); !slices.Contains(got, "Running · round 2") || slices.Contains(got, "Running · round 1") {
		t.Errorf("the status line said %q during the rerun, want Running · round 2 and never round 1", got)
	}

	p.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{file}))
	p.waitFor("the recording", `!document.getElementById('recording-bar').hidden && !document.getElementById('replay-step').disabled`)
	_ = eval[chromedp.Void](p, `(() => { const b = document.getElementById('replay-step'); while (!b.disabled && !document.querySelector('#chat .round.is-live')) b.click(); })()`)
	label := eval[string](p, `getComputedStyle(document.querySelector('#chat .round.is-live h3'), '::after').content`)
	if label != `" · recorded"` {
		t.Errorf("a recording's round in progress is labelled %s, want \" · recorded\"", label)
	}
	p.screenshot("recorded-round")
}

// TestCompareShowsEachRawOutput compares one request in the hermes and
// the marker call formats: each round shows both runs' raw output side
// by side, level, each with its own format's call marks highlighted.
func TestCompareShowsEachRawOutput(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	for _, dialect := range []string{"hermes", "marker"} {
		runDialect(t, url, dialect)
	}
	p := open(t, url)
	p.viewport(1280, 720)
	p.waitFor("both runs, finished, in the Runs panel", `[...document.querySelectorAll('#run-list .run-state')].filter((s) => s.textContent.startsWith('answered')).length === 2`)
	p.do(chromedp.Click(chromedp.CSS(`#run-list li:nth-child(1) .compare-pick input`)), chromedp.Click(chromedp.CSS(`#run-list li:nth-child(2) .compare-pick input`)))
	p.do(chromedp.Click(chromedp.CSS(`.compare-button`)))
	p.waitFor("the compared rounds", `document.querySelectorAll('#compare-dialog .compare-round').length === 2`)
	type rawSide struct {
		Text  string
		Marks []string
		Top   float64
	}
	rounds := eval[[][]rawSide](p, `[...document.querySelectorAll('#compare-dialog .compare-round')].map((round) =>
  [...round.querySelectorAll('.compare-raw .compare-side')].map((side) => ({
    text: side.querySelector('pre')?.textContent ?? '',
    marks: [...side.querySelectorAll('pre .tok')].map((t) => t.textContent),
    top: side.querySelector('pre')?.getBoundingClientRect().top ?? -1,
  })))`)
	if len(rounds) != 2 {
		t.Fatalf("%d rounds compared, want 2", len(rounds))
	}
	for i, sides := range rounds {
		if len(sides) != 2 || sides[0].Text == "" || sides[1].Text == "" {
			t.Fatalf("round %d: the raw outputs are %+v, want both runs'", i+1, sides)
		}
		if sides[0].Top != sides[1].Top {
			t.Errorf("round %d: the raw outputs start at y = %.0f and %.0f, want them level", i+1, sides[0].Top, sides[1].Top)
		}
	}
	// The runs are listed newest first: the marker run is A, hermes B.
	a, b := rounds[0][0], rounds[0][1]
	if !slices.Contains(a.Marks, ">>>CALL_FUNCTION<<<") || !slices.Contains(b.Marks, "<tool_call>") {
		t.Errorf("round 1's raw outputs highlight %q (A, marker) and %q (B, hermes)", a.Marks, b.Marks)
	}
	contains(t, "A's raw output", a.Text, `>>>CALL_FUNCTION<<< {"name": "send_mail"`)
	// The runs differ in their call format alone, as their settings say.
	differ := eval[[]string](p, `[...document.querySelectorAll('#compare-dialog .compare-settings-list li')].map((li) => li.textContent)`)
	if len(differ) != 1 || differ[0] != "dialect marker → hermes" {
		t.Errorf("the settings that differ are listed as %q, want the dialect alone: marker → hermes", differ)
	}
	p.screenshot("compare-raw")
}

// runDialect starts the email request through the run API in a call
// format, and does not wait for it to end.
func runDialect(t *testing.T, url, dialect string) {
	t.Helper()
	resp, err := http.Post(url+"/api/runs", "application/json", strings.NewReader(
		`{"message": "`+emailRequest+`", "dialect": "`+dialect+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/runs = %s", resp.Status)
	}
}

// TestARunAtLaptopSize runs the first example request at the binary's
// own pace in a 1280×720 window, as someone trying toolscope sees it, and
// takes the README's picture: the raw output folds the thinking that the
// Thinking card shows to one line, which a click opens and folds again,
// so that at the end the answering round is in view whole, and the tool
// result of the round before with it.
func TestARunAtLaptopSize(t *testing.T) {
	t.Parallel()
	s := engine.Defaults()
	s.Backend = engine.BackendDemo
	p := open(t, serve(t, s))
	p.viewport(1280, 720)
	_ = eval[chromedp.Void](p, `document.querySelector('#empty .seed').click()`)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q", reason)
	}
	p.waitFor("the answer in view", inChat+`(document.querySelector('.step-answer.is-final'))`)
	p.screenshot("laptop-1280x720-email")

	thinking := `document.querySelectorAll('#chat .round')[1].querySelector('.step-raw .raw-think')`
	// Each line a piece of text takes is one of its client rects.
	lines := func() int { return eval[int](p, thinking+`.getClientRects().length`) }
	if n := lines(); n != 1 {
		t.Errorf("round 2's raw output shows its thinking on %d lines, want it folded to one", n)
	}
	_ = eval[chromedp.Void](p, thinking+`.click()`)
	if n := lines(); n < 2 {
		t.Errorf("a click on the folded thinking left it on %d line, want it open", n)
	}
	_ = eval[chromedp.Void](p, thinking+`.click()`)
	if n := lines(); n != 1 {
		t.Errorf("a second click left the thinking on %d lines, want it folded again", n)
	}
	p.waitFor("round 2 in view", `[...document.querySelectorAll('#chat .round')[1].querySelectorAll('.step')].every(`+inChat+`)`)
	// The result the model read back, in round 1's last card: the line that links the two rounds.
	result := `(() => { const pre = document.querySelector('#chat .step-response pre'), range = document.createRange();
  const text = [...pre.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.textContent.includes('"status"'));
  range.selectNodeContents(text); return range; })()`
	if !eval[bool](p, inChat+`(`+result+`)`) {
		t.Error("at 1280×720 the answering round fills the view: the tool result that round 1 sent back is out of sight")
	}
}

// TestPhoneHeaderIsOneLine opens the page at a phone's 420×800: the
// header keeps one line and the demo note a few, so the chat has the rest.
func TestPhoneHeaderIsOneLine(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	p.viewport(420, 800)
	p.visible("the header's buttons", ".topbar button, .brand-name")
	sizes := eval[map[string]float64](p, `(() => {
  const h = (sel) => document.querySelector(sel).getBoundingClientRect().height;
  return { header: h('.topbar'), row: h('#toggle-theme'), note: h('#demo-banner') };
})()`)
	if sizes["header"] > 2*sizes["row"] {
		t.Errorf("the header is %.0f px high for %.0f px buttons: it wraps", sizes["header"], sizes["row"])
	}
	if sizes["note"] > 800/8 {
		t.Errorf("the demo note is %.0f px high, more than an eighth of the 800 px window", sizes["note"])
	}
	contains(t, "the demo note", eval[string](p, `document.getElementById('demo-banner').innerText`), "not an LLM")
	p.screenshot("phone-420x800")
}

// TestPresenterDrawsTheLoop presents the email request on a 1920×1080
// projector and a 1280×720 one: the loop map draws the loop as a loop,
// the four steps of a round on a ring with an arrow from Response back to
// Model, which lights when round 2 starts, in type larger than the
// cards'; while the run goes on the composer gives way to its Stop.
func TestPresenterDrawsTheLoop(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int64{{1920, 1080}, {1280, 720}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			// A server of its own: the page remembers presenter mode per origin.
			p := open(t, serve(t, demoModel(3*time.Second))) // a tool long enough to catch on a busy machine
			p.viewport(size[0], size[1])
			// A click by the button's place could land where it was before the resize.
			_ = eval[chromedp.Void](p, `document.getElementById('toggle-present').click()`)
			p.waitFor("presenter mode", `document.documentElement.classList.contains('presenting')`)
			p.visible("the loop map's steps", "#loop-map .loop-name")
			centre := eval[map[string][2]float64](p, `Object.fromEntries([...document.querySelectorAll('#loop-map [data-step]')].map((li) => {
  const r = li.querySelector('.loop-name').getBoundingClientRect();
  return [li.dataset.step, [r.left + r.width / 2, r.top + r.height / 2]];
}))`)
			model, call, tool, response := centre["model"], centre["call"], centre["tool"], centre["response"]
			// Clockwise round a ring: Model above, Tool call right, Tool below, Response left.
			if !(model[1] < call[1] && call[0] > tool[0] && tool[1] > response[1] && response[0] < model[0] && call[0] > response[0] && tool[1] > model[1]) {
				t.Errorf("the loop's steps are not on a ring: %v", centre)
			}
			if n := eval[int](p, `document.querySelectorAll('#loop-map [data-arc="response-model"]').length`); n != 1 {
				t.Fatalf("%d arrows from Response back to Model, want 1", n)
			}
			sizes := eval[[]float64](p, `[parseFloat(getComputedStyle(document.querySelector('#loop-map .loop-name')).fontSize), parseFloat(getComputedStyle(document.documentElement).fontSize)]`)
			if sizes[0] < sizes[1] {
				t.Errorf("the loop map's steps are in %.0f px type, smaller than the cards' %.0f px", sizes[0], sizes[1])
			}

			_ = eval[chromedp.Void](p, `(() => {
  window.arcs = [];
  document.getElementById('chat').addEventListener('run-event', () => {
    const lit = document.querySelector('#loop-map .loop-arrow.is-lit')?.dataset.arc ?? '';
    if (window.arcs.at(-1) !== lit) window.arcs.push(lit);
  });
})()`)
			p.send(emailRequest)
			p.waitFor("the tool to run", `document.querySelector('.step-exec.is-live')`)
			if eval[bool](p, inWindow+`(document.getElementById('message'))`) {
				t.Error("the composer's text box is on screen while the run goes on")
			}
			p.visible("the composer's Stop during the run", "#composer-stop")
			p.screenshot(fmt.Sprintf("presenter-%dx%d-tool", size[0], size[1]))
			if reason := p.waitEnd(1); reason != agent.Answered {
				t.Fatalf("the run ended %q", reason)
			}
			p.visible("the composer after the run", "#message")
			want := []string{"request-model", "model-call", "call-tool", "tool-response", "response-model", "model-answer"}
			if got := eval[[]string](p, `window.arcs`); !isSubsequence(want, got) {
				t.Errorf("the loop map lit the arrows %q, want %q in that order", got, want)
			}
			p.screenshot(fmt.Sprintf("presenter-%dx%d-end", size[0], size[1]))
		})
	}
}
