package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/toolscope/toolscope/agent"
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
