package web_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/store"
)

const emailRequest = "Send an email to john@example.com about tomorrow's standup"

// TestPolishRunsSayWhenAndWhence runs two requests, restarts the server,
// and moves their starts in its history database to two days ago and to
// a day of last year. In a page that reads dates in English and in UTC,
// the Runs panel shows a run of today by its time, the one of two days
// ago with its date, and last year's with the year too. Opened, a run
// from the history says so, and when it started, over its request and
// in the Run panel; a run in memory says neither.
func TestPolishRunsSayWhenAndWhence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var recent, lastYear string
	if !t.Run("before the restart", func(t *testing.T) {
		url := serveWithHistory(t, dir)
		recent = runThroughAPI(t, url, emailRequest)
		lastYear = runThroughAPI(t, url, "Cancel the standup meeting next Monday")
	}) {
		t.FailNow()
	}
	now := time.Now().UTC()
	starts := map[string]time.Time{
		recent:   time.Date(now.Year(), now.Month(), now.Day()-2, 9, 5, 0, 0, time.UTC),
		lastYear: time.Date(now.Year()-1, time.November, 30, 16, 36, 0, 0, time.UTC),
	}
	backdate(t, dir, starts)

	url := serveWithHistory(t, dir)
	p := open(t, url)
	p.readDatesInUTC()
	p.send(emailRequest)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("today's run ended %q", reason)
	}
	p.waitFor("the three runs in the Runs panel", `document.querySelectorAll('#run-list .run-item').length === 3`)
	list := listRuns(t, url)
	if len(list) != 3 {
		t.Fatalf("GET /api/runs lists %d runs, want 3", len(list))
	}
	today := list[0]
	starts[today.ID] = today.Started
	for _, s := range list {
		if s.Stored != (s.ID != today.ID) {
			t.Errorf("GET /api/runs says run %s is stored: %v", s.ID, s.Stored)
		}
	}

	now = time.Now()
	for id, at := range starts {
		entry := fmt.Sprintf(`#run-list .run-item[data-id=%q]`, id)
		got := plainSpaces(eval[string](p, `document.querySelector('`+entry+` .run-state').textContent`))
		if want := "answered · " + startedAt(at, now); got != want {
			t.Errorf("the Runs panel says %q of the run started %v, want %q", got, at, want)
		}
	}
	p.screenshot("polish-runs-dates")

	// A run from the history says so, with when it started.
	p.do(chromedp.Click(fmt.Sprintf(`#run-list .run-item[data-id=%q]`, recent)))
	p.waitFor("the stored run's turn", `document.querySelector('#chat .turn.is-stored')`)
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stored run shows it ended %q", reason)
	}
	checkEmailPipeline(t, p.turns()[0], emailRequest)
	want := "From the history · started " + startedAt(starts[recent], now)
	if got := p.origin(); got != [2]string{want, want} {
		t.Errorf("the stored run's turn and Run panel say %q, want %q", got, want)
	}
	p.viewport(1280, 720)
	_ = eval[chromedp.Void](p, `document.getElementById('chat').scrollTop = 0`)
	p.screenshot("polish-history-run")

	// A run in memory says nothing of the kind.
	p.do(chromedp.Click(fmt.Sprintf(`#run-list .run-item[data-id=%q]`, today.ID)))
	p.waitFor("today's run's turn", `document.querySelector('#chat .turn:not(.is-stored)')`)
	p.waitEnd(1)
	if got := p.origin(); got != [2]string{"You", ""} {
		t.Errorf("the run in memory's turn and Run panel say %q, want \"You\" and nothing", got)
	}
}

// runThroughAPI runs message through the run API, as a script does, and
// returns the run's ID once the run has finished.
func runThroughAPI(t *testing.T, url, message string) string {
	t.Helper()
	return runBodyThroughAPI(t, url, map[string]any{"message": message})
}

// runBodyThroughAPI is runThroughAPI with a whole request body: a message
// and the settings to run it with.
func runBodyThroughAPI(t *testing.T, url string, request map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(request)
	resp, err := http.Post(url+"/api/runs", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var run struct{ ID, Events string }
	err = json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d, %v", resp.StatusCode, err)
	}
	// The event stream ends when the run has.
	resp, err = http.Get(url + run.Events)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

// backdate sets when the runs of the history database in dir started, as
// if an earlier server had run them then. No server may have it open.
func backdate(t *testing.T, dir string, starts map[string]time.Time) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, at := range starts {
		res, err := db.Exec(`UPDATE runs SET started_at = ?, finished_at = ? WHERE id = ?`, at.UnixMicro(), at.Add(time.Second).UnixMicro(), id)
		if n, _ := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("backdating run %s: %v (%d rows)", id, err, n)
		}
	}
}

func listRuns(t *testing.T, url string) []runs.Summary {
	t.Helper()
	resp, err := http.Get(url + "/api/runs")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct{ Runs []runs.Summary }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return list.Runs
}

// startedAt is when a run started as the page says it to an English
// reader in UTC at now: the time for today, else the date and the time
// to the minute, with the year for an earlier year.
func startedAt(at, now time.Time) string {
	at, now = at.UTC(), now.UTC()
	switch {
	case at.Format(time.DateOnly) == now.Format(time.DateOnly):
		return at.Format("3:04:05 PM")
	case at.Year() == now.Year():
		return at.Format("Jan 2, 3:04 PM")
	default:
		return at.Format("Jan 2, 2006, 3:04 PM")
	}
}

// plainSpaces replaces the narrow and no-break spaces Intl puts in dates.
func plainSpaces(s string) string {
	return strings.NewReplacer("\u202f", " ", "\u00a0", " ").Replace(s)
}

// readDatesInUTC makes the tab read dates as an English reader in UTC
// does, as startedAt writes them, and loads the page again.
func (p *page) readDatesInUTC() {
	p.t.Helper()
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "UTC"}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en_US"})
		return err
	}), chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
}

// origin returns what the first turn says over its request, and what the
// Run panel says of where the run on screen comes from ("" when hidden).
func (p *page) origin() [2]string {
	p.t.Helper()
	got := eval[[]string](p, `(() => {
  const origin = document.getElementById('run-origin');
  return [document.querySelector('#chat .turn .who').textContent, origin.hidden ? '' : origin.textContent];
})()`)
	return [2]string{plainSpaces(got[0]), plainSpaces(got[1])}
}

// TestPolishSidePanelLinesUp checks the side panel's layout at 1280×720:
// the Step through checkbox starts where the other settings' controls
// do, and the Runs panel's search box, focused, leaves its focus ring
// room from the hint above it and the first run below it.
func TestPolishSidePanelLinesUp(t *testing.T) {
	t.Parallel()
	p := open(t, serve(t, demoModel(0)))
	p.viewport(1280, 720)
	p.send(emailRequest)
	p.waitEnd(1)
	p.waitFor("the run in the Runs panel", `document.querySelector('#run-list .run-item')`)

	box := eval[map[string]float64](p, `(() => {
  const at = (id) => document.getElementById(id).getBoundingClientRect();
  return { left: at('set-step').left, width: at('set-step').width, controls: at('set-retriever').left, wide: at('set-retriever').width };
})()`)
	if d := box["left"] - box["controls"]; d < -1 || d > 1 || box["width"] > box["wide"]/4 {
		t.Errorf("the Step through checkbox is %.0f px wide at x = %.0f; the other controls start at x = %.0f (%.0f px wide)",
			box["width"], box["left"], box["controls"], box["wide"])
	}

	p.do(chromedp.Click(chromedp.ID("run-search")))
	room := eval[map[string]float64](p, `(() => {
  const box = document.getElementById('run-search'), style = getComputedStyle(box), at = box.getBoundingClientRect();
  return {
    focused: Number(box.matches(':focus-visible')),
    ring: parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset),
    above: at.top - box.previousElementSibling.getBoundingClientRect().bottom,
    below: document.querySelector('#run-list .run-item').getBoundingClientRect().top - at.bottom,
  };
})()`)
	if room["focused"] != 1 || room["ring"] <= 0 {
		t.Fatalf("the focused search box shows no focus ring: %v", room)
	}
	if room["above"] < room["ring"] || room["below"] < room["ring"] {
		t.Errorf("the search box's %.0f px focus ring has %.0f px to the hint above and %.0f px to the run below",
			room["ring"], room["above"], room["below"])
	}
	p.screenshot("polish-side-panel")
}

// TestPolishLoopMapShowsAPause steps through the email request in
// presenter mode, where the side panel's status line is hidden: at each
// pause the loop map lights the step the run waits before and marks it
// "paused", in the colour the status dot has for a pause; once the run
// goes on the mark goes, and none is left at the end.
func TestPolishLoopMapShowsAPause(t *testing.T) {
	t.Parallel()
	p := presentStepping(t, 1280, 720, emailRequest)

	for _, pause := range []struct {
		round    int
		at, step string
	}{
		{1, "input", "model"}, {1, "call", "call"}, {1, "response", "response"}, {2, "input", "model"},
	} {
		p.stepTo(1, pause.at)
		p.statusSays(fmt.Sprintf("Paused · round %d · %s", pause.round, map[string]string{
			"input": "before the model call", "call": "before send_mail runs", "response": "before the response goes back"}[pause.at]))
		p.mapPausedAt(pause.round, pause.at, pause.step)
		if pause.round == 1 && pause.at == "call" {
			p.screenshot("polish-presenter-paused")
		}
		p.continueWithSpace()
	}
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stepped run ended %q", reason)
	}
	if left := eval[[]string](p, `[document.getElementById('loop-map').dataset.paused ?? '', ...[...document.querySelectorAll('#loop-map .loop-paused')].map((el) => el.textContent)]`); len(left) != 1 || left[0] != "" {
		t.Errorf("the loop map still shows a pause once the run has answered: %q", left)
	}
	if got := eval[string](p, `document.querySelector('#loop-map [aria-current]').dataset.step`); got != "answer" {
		t.Errorf("the loop map lights %q at the end, want answer", got)
	}
}

// mapPausedAt checks that the loop map lights step, in round, alone
// marked paused at (the pause's "at"), in sight, in the status dot's
// colour for a pause.
func (p *page) mapPausedAt(round int, at, step string) {
	p.t.Helper()
	p.visible("the loop map's pause mark", "#loop-map .loop-paused")
	got := eval[map[string]string](p, `(() => {
  const map = document.getElementById('loop-map'), current = map.querySelector('[aria-current]');
  const marks = map.querySelectorAll('.loop-paused');
  return {
    paused: map.dataset.paused ?? '', step: current?.dataset.step ?? '', round: map.querySelector('[data-slot=round]').textContent,
    marks: String(marks.length), markedStep: marks[0]?.closest('[data-step]').dataset.step ?? '', mark: marks[0]?.textContent ?? '',
    markColour: marks[0] ? getComputedStyle(marks[0]).color : '',
    stepColour: current ? getComputedStyle(current.querySelector('.loop-name')).borderTopColor : '',
    dot: getComputedStyle(document.getElementById('run-dot')).backgroundColor,
  };
})()`)
	want := map[string]string{"paused": at, "step": step, "round": fmt.Sprintf("round %d", round), "marks": "1", "markedStep": step, "mark": "paused",
		"markColour": got["dot"], "stepColour": got["dot"], "dot": got["dot"]}
	for k, v := range want {
		if got[k] != v {
			p.t.Errorf("paused at %s of round %d, the loop map's %s is %q, want %q", at, round, k, got[k], v)
		}
	}
}

// TestPolishPausesStayInView steps through a reply with two calls in
// presenter mode on a 1024×768 projector: at every pause the controls are
// in the chat's view, the page having followed the run by itself, though
// cards above fold and finish as the calls below appear.
func TestPolishPausesStayInView(t *testing.T) {
	t.Parallel()
	p := presentStepping(t, 1024, 768, "Schedule a meeting with ana@example.com tomorrow at 10 about the budget, then email her the agenda")
	for i, at := range []string{"input", "call", "call", "response", "input"} {
		p.stepTo(1, at)
		p.waitFor(fmt.Sprintf("pause %d (%s): its controls in the chat's view, above the composer", i+1, at), `(() => {
  const controls = [...document.querySelectorAll('#chat .is-paused .step-controls')].pop().getBoundingClientRect();
  const chat = document.getElementById('chat').getBoundingClientRect();
  const composer = document.getElementById('composer').getBoundingClientRect();
  return controls.top >= chat.top && controls.bottom <= Math.min(chat.bottom, composer.top);
})()`)
		p.continueWithSpace()
	}
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stepped run ended %q", reason)
	}
}

// presentStepping opens the demo model's page in a width×height window,
// in presenter mode with Step through ticked, and sends request.
func presentStepping(t *testing.T, width, height int64, request string) *page {
	t.Helper()
	p := open(t, serve(t, demoModel(0)))
	p.viewport(width, height)
	p.do(chromedp.Click(chromedp.ID("set-step")), chromedp.Click(chromedp.ID("toggle-present")))
	p.waitFor("presenter mode", `document.documentElement.classList.contains('presenting')`)
	p.send(request)
	return p
}

// TestPolishReadingDuringAStream: a reader who turns the wheel up while
// the model streams stays where they scrolled to as more tokens arrive.
func TestPolishReadingDuringAStream(t *testing.T) {
	t.Parallel()
	slow := demoModel(0)
	slow.DemoDelay = 20 * time.Millisecond
	p := open(t, serve(t, slow))
	p.viewport(1280, 480)
	p.send(emailRequest)
	const gap = `(c => c.scrollHeight - c.scrollTop - c.clientHeight)(document.getElementById('chat'))`
	const streamed = `document.querySelector('#chat .step-raw.is-live pre')?.textContent.length ?? 0`
	p.waitFor("the live output to overflow the chat", `document.querySelector('#chat .step-raw.is-live') && `+
		`document.getElementById('chat').scrollHeight > document.getElementById('chat').clientHeight + 300`)
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		wheel := input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseWheel, X: 10, Y: 200, DeltaX: 1, DeltaY: -250}
		_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, wheel)
		return err
	}))
	p.waitFor("the chat scrolled up", gap+` > 100`)
	top := eval[float64](p, `document.getElementById('chat').scrollTop`)
	seen := eval[int](p, streamed)
	p.waitFor("more of the reply to stream", fmt.Sprintf(`(%s) > %d + 40 || !document.querySelector('#chat .step-raw.is-live')`, streamed, seen))
	if now := eval[float64](p, `document.getElementById('chat').scrollTop`); now != top {
		t.Errorf("the chat moved from %.0f to %.0f px while the reader was scrolled up", top, now)
	}
	p.do(chromedp.KeyEvent(kb.Escape))
	p.waitEnd(1)
}

// TestPolishCompareBeforeAndAfterAnEdit compares a run whose prompt was
// edited at its pause with the same request run as it came: the diff is
// of what the model read, and says which side was edited.
func TestPolishCompareBeforeAndAfterAnEdit(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	p := open(t, url)
	p.do(chromedp.Click(chromedp.ID("set-step")))
	p.send(emailRequest)
	p.stepTo(1, "input")
	_ = eval[chromedp.Void](p, `(() => {
  const box = document.querySelector('#chat .is-paused .step-edit');
  box.value = box.value.replace("tomorrow's standup", "tomorrow's standup, in French");
})()`)
	p.clickStep("Send")
	for _, at := range []string{"call", "response", "input"} {
		p.stepTo(1, at)
		p.continueWithSpace()
	}
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the edited run ended %q", reason)
	}
	runThroughAPI(t, url, emailRequest) // newest, so A; the edited run is B

	p.waitFor("both runs, finished, in the Runs panel", `[...document.querySelectorAll('#run-list .run-state')].filter((s) => s.textContent.startsWith('answered')).length === 2`)
	p.do(chromedp.Click(chromedp.CSS(`#run-list li:nth-child(1) .compare-pick input`)), chromedp.Click(chromedp.CSS(`#run-list li:nth-child(2) .compare-pick input`)))
	p.do(chromedp.Click(chromedp.CSS(`.compare-button`)))
	p.waitFor("the compared rounds", `document.querySelectorAll('#compare-dialog .compare-round').length === 2`)
	added := eval[string](p, `[...document.querySelector('#compare-dialog .compare-round').querySelectorAll('.diff-add')].map((l) => l.textContent).join('')`)
	contains(t, "round 1's diff", added, "in French")
	contains(t, "round 1's summary", eval[string](p, `document.querySelector('#compare-dialog .compare-round [data-slot=diff-summary]').textContent`),
		"B edited at the pause")
}
