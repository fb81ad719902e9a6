package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// servePulling serves toolscope as ./start.sh does, with an Ollama that
// answers but lacks qwen3:4b, which it pulls as pull says.
func servePulling(t *testing.T, pull ollamatest.Pull) (string, *ollamatest.Server) {
	t.Helper()
	ollama := ollamatest.New(t)
	ollama.RemoveModel("qwen3:4b")
	ollama.AddPull("qwen3:4b", pull)
	url := serve(t, engine.Settings{Backend: engine.BackendAuto, OllamaHost: ollama.Host(), Model: "qwen3:4b", DemoDelay: 2 * time.Millisecond})
	return url, ollama
}

// The pull's parts on the page.
const (
	pullText     = `document.querySelector('#pull [data-slot=text]').textContent`
	pullError    = `document.querySelector('#pull [data-slot=error]')`
	pullStart    = `document.getElementById('pull-start')`
	pullProgress = `document.querySelector('#pull [data-slot=progress]')`
)

// startPull clicks the banner's Pull and waits until the bar shows bytes.
func (p *page) startPull() {
	p.t.Helper()
	p.waitFor("the Pull button", pullStart+` && !`+pullStart+`.closest('[hidden]')`)
	_ = eval[chromedp.Void](p, pullStart+`.click()`)
	p.waitFor("the bar to fill", `document.querySelector('#pull progress').value > 0 && `+pullText+`.includes(' of ')`)
}

// TestPullFromTheBanner pulls the missing model from the demo banner: the
// bar shows bytes, speed and time left, a reload finds the pull again,
// and once the model is pulled the page switches from the demo model to
// it, with no restart, and the next request goes to Ollama.
func TestPullFromTheBanner(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	// Paced, so that the speed has a second of progress behind it when
	// the pull holds, its bar part-way.
	url, ollama := servePulling(t, ollamatest.Pull{Layers: []int64{2_500_000_000, 11_000, 500}, Steps: 8, WaitAfter: 5, Release: release, Pace: 400 * time.Millisecond})
	p := open(t, url)
	p.viewport(1280, 720)
	banner := eval[string](p, `document.getElementById('demo-banner').innerText`)
	contains(t, "the demo note", banner, "Pull it here, and toolscope switches to it once Ollama has it.")
	contains(t, "the demo note", banner, "2.5 GB, through Ollama")
	p.screenshot("pull-offered")

	p.startPull()
	p.waitFor("the speed and the time left", pullText+`.includes('/s, ') && `+pullText+`.endsWith(' left')`)
	contains(t, "the progress", eval[string](p, pullText), "1.1 GB of 2.5 GB, ")
	p.visible("the pull", "#pull progress, #pull [data-slot=text], #pull [data-slot=cancel]")
	p.screenshot("pull-progress")
	p.do(chromedp.Click(chromedp.ID("toggle-theme")))
	p.screenshot("pull-progress-dark")
	p.viewport(390, 844)
	p.visible("the pull on a phone", "#pull progress, #pull [data-slot=text], #pull [data-slot=cancel]")
	p.screenshot("pull-progress-phone")
	p.viewport(1280, 720)
	p.do(chromedp.Click(chromedp.ID("toggle-large")))
	p.visible("the pull in large type", "#pull progress, #pull [data-slot=text], #pull [data-slot=cancel]")
	p.screenshot("pull-progress-large")

	// A reload mid-pull finds the pull under way.
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	p.waitFor("the pull found again", pullProgress+` && !`+pullProgress+`.hidden && `+pullText+`.includes('1.1 GB of 2.5 GB')`)

	close(release)
	p.waitFor("the page to switch to the model", `!document.getElementById('demo-banner') && !document.getElementById('demo-badge')`)
	p.waitFor("the health check", `document.getElementById('health-status').textContent === 'ready · Ollama `+ollamatest.Version+`'`)
	if chip := eval[string](p, `document.querySelector('.model-chip').innerText`); !strings.Contains(chip, "qwen3:4b") || !strings.Contains(chip, "ollama · raw") {
		t.Errorf("the header says %q, want qwen3:4b on ollama, raw", chip)
	}
	if facts := eval[string](p, `document.querySelector('.facts').innerText`); !strings.Contains(facts, "ollama") || !strings.Contains(facts, "qwen3:4b") || strings.Contains(facts, "demo") {
		t.Errorf("the Model panel says %q, want qwen3:4b on ollama", facts)
	}
	if eval[bool](p, `document.getElementById('set-model').disabled || document.getElementById('set-mode').disabled`) {
		t.Error("the model's settings are still locked as for the demo model")
	}
	p.screenshot("pull-switched")

	ollama.Reply(ollamatest.Reply{Text: "Hello from qwen3."})
	p.send("Say hello")
	p.waitEnd(1)
	if n := len(ollama.Requests()); n != 1 {
		t.Fatalf("Ollama got %d requests, want the run's one: the page did not switch to the model", n)
	}
	contains(t, "the answer", p.turns()[0].Rounds[0].Steps[len(p.turns()[0].Rounds[0].Steps)-1].Body, "Hello from qwen3.")
}

// TestPullFailureInTheBanner shows why a pull failed and offers to try
// again; the demo model stays.
func TestPullFailureInTheBanner(t *testing.T) {
	t.Parallel()
	url, _ := servePulling(t, ollamatest.Pull{Layers: []int64{2_500_000_000}, Error: "digest mismatch, file must be downloaded again"})
	p := open(t, url)
	p.viewport(1280, 720)
	_ = eval[chromedp.Void](p, pullStart+`.click()`)
	p.waitFor("the failure", pullError+` && !`+pullError+`.hidden`)
	contains(t, "the failure", eval[string](p, pullError+`.textContent`),
		`Ollama could not pull "qwen3:4b": digest mismatch, file must be downloaded again: try again; Ollama's server log says more.`)
	if label := eval[string](p, pullStart+`.textContent`); label != "Try again" {
		t.Errorf("the button says %q, want Try again", label)
	}
	if !eval[bool](p, `Boolean(document.getElementById('demo-badge'))`) {
		t.Error("the demo badge went, though the demo model still answers")
	}
	p.screenshot("pull-failed")
}

// TestPullCancelFromTheBanner stops a pull with Cancel: Ollama's request
// ends, and the banner offers the pull again.
func TestPullCancelFromTheBanner(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{})
	url, _ := servePulling(t, ollamatest.Pull{Layers: []int64{2_500_000_000}, Steps: 8, WaitAfter: 4, Ended: ended})
	p := open(t, url)
	p.viewport(1280, 720)
	p.startPull()
	p.do(chromedp.Click(chromedp.CSS(`#pull [data-slot=cancel]`)))
	p.waitFor("the cancellation", pullError+` && !`+pullError+`.hidden && `+pullProgress+`.hidden`)
	contains(t, "the note", eval[string](p, pullError+`.textContent`), "Pull cancelled.")
	select {
	case <-ended:
	case <-p.ctx.Done():
		t.Fatal("Ollama's pull request did not end")
	}
	if label := eval[string](p, pullStart+`.textContent`); label != "Pull qwen3:4b" {
		t.Errorf("the button says %q, want Pull qwen3:4b", label)
	}
	p.screenshot("pull-cancelled")
}
