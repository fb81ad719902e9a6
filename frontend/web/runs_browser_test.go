package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRunsPanelKeepsFocusAcrossPolls ticks a run's Compare box in the
// Runs panel, which focuses it, then starts two more runs through the
// API. The panel shows each at a poll of its own; the box the keyboard
// was on stays the same element, focused and ticked, through both.
func TestRunsPanelKeepsFocusAcrossPolls(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	first := runThroughAPI(t, url, emailRequest)
	p := open(t, url)
	box := fmt.Sprintf(`#run-list [data-compare=%q]`, first)
	p.waitFor("the run in the Runs panel", `document.querySelector('`+box+`')`)
	p.do(chromedp.Click(chromedp.CSS(box)))
	_ = eval[chromedp.Void](p, `(() => {
  window.tickedBox = document.querySelector('`+box+`');
  window.tickedBox.focus();
})()`)

	for _, message := range []string{"Cancel the standup meeting next Monday", "What is the weather in Paris?"} {
		id := runThroughAPI(t, url, message)
		p.waitFor("the new run in the Runs panel", fmt.Sprintf(`document.querySelector('#run-list .run-item[data-id=%q]')`, id))
		got := eval[map[string]bool](p, `({
  same: document.querySelector('`+box+`') === window.tickedBox,
  focused: document.activeElement === window.tickedBox,
  ticked: window.tickedBox.checked,
})`)
		if !got["same"] || !got["focused"] || !got["ticked"] {
			t.Fatalf("after run %s appeared, the first run's Compare box: %v; want the same element, focused and ticked", id, got)
		}
	}
	if n := eval[int](p, `document.querySelectorAll('#run-list .run-item').length`); n != 3 {
		t.Errorf("the Runs panel lists %d runs, want 3", n)
	}
	if got := eval[string](p, `document.querySelector('.compare-button').textContent`); got != "Tick one more run to compare" {
		t.Errorf("the Compare button says %q, want %q", got, "Tick one more run to compare")
	}
}
