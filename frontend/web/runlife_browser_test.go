package web_test

// The life of a run in the page: opened from the Runs panel or a link,
// followed up, reloaded mid-run, exported, found in the list.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// TestFollowUpToAnOpenedRunContinuesIt opens a run from the Runs panel and
// sends a follow-up: the model reads the run's request and answer before
// it, as it would have in the page that ran it. After a restart, the run
// opened from its link (/#run=…) and out of the history is followed up
// alike, and exports as a recording.
func TestFollowUpToAnOpenedRunContinuesIt(t *testing.T) {
	t.Parallel()
	t.Run("from the Runs panel", func(t *testing.T) {
		t.Parallel()
		url := serve(t, demoModel(0))
		id := runThroughAPI(t, url, emailRequest)
		p := open(t, url)
		p.waitFor("the run in the Runs panel", fmt.Sprintf(`document.querySelector('#run-list .run-item[data-id=%q]')`, id))
		p.do(chromedp.Click(fmt.Sprintf(`#run-list .run-item[data-id=%q]`, id)))
		p.waitEnd(1)
		p.followUp("Send her the agenda")
		for _, size := range [][2]int64{{1280, 720}, {420, 800}} {
			p.viewport(size[0], size[1])
			_ = eval[chromedp.Void](p, `document.querySelectorAll('#chat .turn')[1].scrollIntoView()`)
			p.screenshot(fmt.Sprintf("follow-up-%d", size[0]))
		}
	})

	t.Run("from its link, after a restart", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var id string
		if !t.Run("before the restart", func(t *testing.T) {
			p := open(t, serveWithHistory(t, dir))
			p.send(emailRequest)
			p.waitEnd(1)
			id = p.linkedRun()
		}) {
			t.FailNow()
		}
		url := serveWithHistory(t, dir)
		p := open(t, url+"/#run="+id)
		setup := fmt.Sprintf(`document.querySelector('#run-list .run-item[data-id=%q] .run-setup')?.textContent`, id)
		p.waitFor("the stored run in the Runs panel, with what it ran on", setup+` === 'toolscope-demo · hermes · raw'`)
		if reason := p.waitEnd(1); reason != agent.Answered {
			t.Fatalf("the linked run shows it ended %q, want %q", reason, agent.Answered)
		}
		checkEmailPipeline(t, p.turns()[0], emailRequest)
		p.checkExport(id)
		p.followUp("Send her the agenda")
	})
}

// followUp sends message after the one turn on the page and checks that
// the model read that turn's request and answer first.
func (p *page) followUp(message string) {
	p.t.Helper()
	answer := step(p.t, p.turns()[0].Rounds[1], "answer").Body
	p.send(message)
	p.waitEnd(2)
	_, messages := p.viewInput(2, 1)
	for _, want := range []string{emailRequest, strings.TrimSpace(answer), message} {
		if !strings.Contains(messages, want) {
			p.t.Errorf("the follow-up's input lacks %q; the model read:\n%s", want, messages)
		}
	}
	if n := len(p.turns()); n != 2 {
		p.t.Errorf("the page shows %d turns, want the opened run and its follow-up", n)
	}
}

// runThroughAPI runs message through the run API from the page, whose
// cookie carries its token, and returns the run's ID once it has
// finished.
func (p *page) runThroughAPI(message string) string {
	p.t.Helper()
	id, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
  const res = await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: %q }) });
  const run = await res.json();
  await (await fetch(run.events)).text(); // the stream ends when the run has
  return run.id;
})()`, message), chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatal(err)
	}
	return id
}

// linkedRun is the run the page's address names.
func (p *page) linkedRun() string {
	p.t.Helper()
	hash := eval[string](p, `location.hash`)
	id, ok := strings.CutPrefix(hash, "#run=")
	if !ok || id == "" {
		p.t.Fatalf("the address names no run: its hash is %q", hash)
	}
	return id
}

// checkExport checks the Export of the first turn: the recording of run
// id, as the server exports it.
func (p *page) checkExport(id string) {
	p.t.Helper()
	export := `document.querySelector('#chat .turn .run-export')`
	p.waitFor("the run's Export", export+`?.hidden === false`)
	got, err := chromedp.Run(p.ctx, chromedp.Evaluate[map[string]string](`(async () => {
  const a = `+export+`;
  const res = await fetch(a.href);
  return { href: a.getAttribute('href'), download: a.download, status: String(res.status), first: (await res.text()).split('\n')[0] };
})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatal(err)
	}
	if want := "/api/runs/" + id + "/export"; got["href"] != want || got["status"] != "200" {
		p.t.Errorf("Export links to %s, which answered %s; want %s, 200", got["href"], got["status"], want)
	}
	contains(p.t, "the exported recording's header", got["first"], `"id":"`+id+`"`)
	if got["download"] != "toolscope-"+id+".jsonl" {
		p.t.Errorf("Export saves as %q", got["download"])
	}
	link := `document.querySelector('#chat .turn .run-link')`
	if got, want := eval[string](p, link+`.href`), eval[string](p, `location.origin`)+"/#run="+id; got != want {
		p.t.Errorf("Copy link copies %q, want %q", got, want)
	}
	_ = eval[chromedp.Void](p, link+`.click()`)
	p.waitFor("Copy link to say it copied", link+`.textContent === 'Link copied'`)
}

// TestReloadMidRunFollowsTheRunAgain reloads the page while a tool runs:
// the address names the run, and the reloaded page shows it again, live,
// with Stop, then to its end; Export comes once it has finished.
func TestReloadMidRunFollowsTheRunAgain(t *testing.T) {
	t.Parallel()
	mail := toolstest.NewGate("send_mail")
	url := serveWith(t, demoModel(0), func(*server.Config) {}, engine.WithTools(mail.Tool()))
	p := open(t, url)
	p.send(emailRequest)
	<-mail.Started
	id := p.linkedRun()
	p.do(chromedp.Reload())
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	p.waitFor("the run to show again, its tool running", `document.querySelector('#chat .step-exec.is-live')`)
	if got := eval[string](p, `document.getElementById('run-status').textContent`); !strings.HasPrefix(got, "Running") {
		t.Errorf("the run status says %q after the reload, want Running", got)
	}
	if eval[bool](p, `document.getElementById('stop').hidden`) {
		t.Error("the reloaded page offers no Stop for the run in progress")
	}
	if !eval[bool](p, `document.querySelector('#chat .turn .run-export').hidden`) {
		t.Error("Export is offered while the run is still going; the server refuses that")
	}
	p.screenshot("reloaded-mid-run")
	mail.Release()
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the run ended %q after the reload", reason)
	}
	r1, _ := callThenAnswer(t, p.turns()[0], emailRequest)
	contains(t, "the tool's result", step(t, r1, "exec").Body, `"status":"done"`)
	p.checkExport(id)
}

// TestViewerLinkOpensALinkedRun opens a viewer link that names an earlier
// run: the viewer's page shows that run, not the newest, and then follows
// the runs the operator starts next.
func TestViewerLinkOpensALinkedRun(t *testing.T) {
	t.Parallel()
	tokens := server.NewTokens()
	url := serveWith(t, demoModel(0), func(c *server.Config) { c.Access.Tokens = tokens })
	operator := open(t, url+"/?token="+tokens.Operator)
	first := operator.runThroughAPI(emailRequest)
	operator.runThroughAPI("Cancel the standup meeting next Monday")

	student := openElsewhere(t, url+"/?token="+tokens.Viewer+"#run="+first)
	if reason := student.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the linked run shows it ended %q", reason)
	}
	if turns := student.turns(); len(turns) != 1 || turns[0].Message != emailRequest {
		t.Fatalf("the viewer shows %d turns, the first %q; want the linked run alone", len(turns), turns[0].Message)
	}
	if n := eval[int](student, `document.querySelectorAll('#chat .run-export').length`); n != 0 {
		t.Errorf("the viewer's page offers Export %d times: its link may not export", n)
	}
	// Every request the viewer's page shows from now on.
	_ = eval[chromedp.Void](student, `(() => {
  window.shown = [];
  new MutationObserver(() => {
    for (const m of document.querySelectorAll('#chat .turn [data-slot=message]')) if (!shown.includes(m.textContent)) shown.push(m.textContent);
  }).observe(document.getElementById('chat'), { childList: true, subtree: true });
})()`)
	const next = "What is the weather in Paris?"
	operator.send(next)
	student.waitFor("the operator's next run", fmt.Sprintf(`window.shown.includes(%q)`, next))
	if shown := eval[[]string](student, `window.shown`); len(shown) != 1 {
		t.Errorf("the viewer showed %q, want only the operator's next run after the linked one", shown)
	}
}

// TestRunsPanelTellsRunsApart lists runs of one request on two dialects:
// each entry says its model, dialect and mode; the list takes the side
// panel's height, its entries line up on the left, and a search that
// matches nothing says so.
func TestRunsPanelTellsRunsApart(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	dialects := map[string]string{}
	for _, d := range []string{"hermes", "marker", "hermes", "marker", "hermes", "marker", "hermes"} {
		dialects[runBodyThroughAPI(t, url, map[string]any{"message": "hi", "dialect": d})] = d
	}
	p := open(t, url)
	p.viewport(1280, 720)
	p.waitFor("the runs in the Runs panel", fmt.Sprintf(`document.querySelectorAll('#run-list .run-item').length === %d`, len(dialects)))
	for id, d := range dialects {
		got := eval[string](p, fmt.Sprintf(`document.querySelector('#run-list .run-item[data-id=%q] .run-setup')?.textContent ?? ''`, id))
		if want := "toolscope-demo · " + d + " · raw"; got != want {
			t.Errorf("run %s's entry says %q of its setup, want %q", id, got, want)
		}
	}
	_ = eval[chromedp.Void](p, `document.getElementById('run-list').scrollIntoView()`)
	shown := eval[int](p, `(() => {
  const box = document.getElementById('run-list').getBoundingClientRect();
  return [...document.querySelectorAll('#run-list .run-item')].filter((b) => {
    const r = b.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.bottom <= innerHeight;
  }).length;
})()`)
	if shown < 5 {
		t.Errorf("the Runs panel shows %d whole runs at 1280×720, want at least 5", shown)
	}
	misaligned := eval[[]string](p, `[...document.querySelectorAll('#run-list .run-item > span')].filter((s) => {
  const b = s.parentElement.getBoundingClientRect(), r = s.getBoundingClientRect();
  return Math.abs(r.left - (b.left + parseFloat(getComputedStyle(s.parentElement).paddingLeft) + parseFloat(getComputedStyle(s.parentElement).borderLeftWidth))) > 1;
}).map((s) => s.className + ': ' + s.textContent)`)
	if len(misaligned) > 0 {
		t.Errorf("entries' lines that do not start at the entry's left edge: %q", misaligned)
	}
	p.screenshot("runs-panel-1280")
	p.viewport(420, 800)
	_ = eval[chromedp.Void](p, `document.getElementById('toggle-side').click()`)
	_ = eval[chromedp.Void](p, `document.getElementById('run-list').scrollIntoView()`)
	p.screenshot("runs-panel-420")

	p.search("quarterly budget")
	p.waitFor("the search to match nothing", `document.querySelectorAll('#run-list li').length === 0`)
	p.waitFor("the list to say so", `!document.getElementById('run-none').hidden`)
	contains(t, "the empty list", eval[string](p, `document.getElementById('run-none').textContent`), "No run matches")
	p.search("marker")
	p.waitFor("a search for the dialect to find its runs", `document.querySelectorAll('#run-list li').length === 3`)
	if !eval[bool](p, `document.getElementById('run-none').hidden`) {
		t.Error("the list says no run matches next to the runs it found")
	}
}

// TestLongRequestIsClamped sends a 20,000-character request: its bubble
// shows the first lines and Show all, which unfolds it whole.
func TestLongRequestIsClamped(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	p := open(t, url)
	p.viewport(1280, 720)
	_ = eval[chromedp.Void](p, `(() => {
  document.getElementById('message').value = 'lorem ipsum dolor sit amet '.repeat(740);
  document.getElementById('composer').requestSubmit();
})()`)
	p.waitEnd(1)
	bubble := `document.querySelector('#chat .turn [data-slot=message]')`
	if h := eval[float64](p, bubble+`.getBoundingClientRect().height`); h > 400 {
		t.Errorf("the request's bubble is %.0f px tall, want it clamped to a few lines", h)
	}
	top := `document.querySelector('#chat .turn').scrollIntoView()`
	_ = eval[chromedp.Void](p, top)
	p.screenshot("long-request-1280")
	p.viewport(420, 800)
	_ = eval[chromedp.Void](p, top)
	p.screenshot("long-request-420")
	toggle := `document.querySelector('#chat .turn .request-toggle')`
	if got := eval[string](p, toggle+`?.textContent ?? ''`); got != "Show all" {
		t.Fatalf("the clamped request offers %q, want Show all", got)
	}
	_ = eval[chromedp.Void](p, toggle+`.click()`)
	if h := eval[float64](p, bubble+`.getBoundingClientRect().height`); h < 2000 {
		t.Errorf("Show all unfolds the request to %.0f px, want all of it", h)
	}
	if got := eval[string](p, toggle+`.getAttribute('aria-expanded')`); got != "true" {
		t.Errorf("Show all's aria-expanded = %q after unfolding", got)
	}
	// A short request is never clamped.
	p.send("hi")
	p.waitEnd(2)
	if n := eval[int](p, `document.querySelectorAll('#chat .request-toggle').length`); n != 1 {
		t.Errorf("%d requests offer Show all, want the long one alone", n)
	}
}
