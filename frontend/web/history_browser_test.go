package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/store"
)

// TestHistoryFindsARunAfterARestart runs a request in the page, stops the
// server and its history database, and starts another server on the same
// data directory: in a fresh page the Runs panel lists the run, its search
// box finds it by a word of the request and by the tool it called and
// hides it for a search that matches nothing, and clicking it shows the
// pipeline the live run showed, card for card, with the same answer.
func TestHistoryFindsARunAfterARestart(t *testing.T) {
	t.Parallel()
	const request = "Send an email to john@example.com about tomorrow's standup"
	dir := t.TempDir()
	var (
		id   string
		live turnView
	)
	// The subtest's cleanups stop the server, end its hub's runs and close
	// the database, which the next server could not open otherwise: the
	// database is locked while a toolscope has it open.
	restarted := t.Run("before the restart", func(t *testing.T) {
		p := open(t, serveWithHistory(t, dir))
		p.send(request)
		if reason := p.waitEnd(1); reason != agent.Answered {
			t.Fatalf("the run ended %q, want %q", reason, agent.Answered)
		}
		live = p.turns()[0]
		checkEmailPipeline(t, live, request)
		p.waitFor("the run in the Runs panel", `document.querySelector('#run-list .run-item')`)
		id = eval[string](p, `document.querySelector('#run-list .run-item').dataset.id`)
	})
	if !restarted {
		t.FailNow()
	}

	p := open(t, serveWithHistory(t, dir))
	item := fmt.Sprintf(`document.querySelector('#run-list .run-item[data-id=%q]')`, id)
	p.waitFor("the run from before the restart in the Runs panel", item)
	if n := eval[int](p, `document.querySelectorAll('#run-list .run-item').length`); n != 1 {
		t.Errorf("the Runs panel lists %d runs, want the 1 run before the restart", n)
	}
	entry := eval[string](p, item+`.textContent`)
	contains(t, "the stored run's entry", entry, request)
	contains(t, "the stored run's entry", entry, "answered")
	if !eval[bool](p, `document.getElementById('run-history').hidden`) {
		t.Errorf("the Runs panel says %q; the history is on", eval[string](p, `document.getElementById('run-history').textContent`))
	}

	// Each search that finds the run follows one that hides it, so that
	// the run's entry shows because the search found it.
	for _, q := range []string{"standup", "send_mail"} {
		p.search("quarterly budget")
		p.waitFor("a search that matches nothing to empty the list", `document.querySelectorAll('#run-list li').length === 0`)
		p.search(q)
		p.waitFor("a search for "+q+" to find the run", item)
	}
	p.screenshot("history-search")

	p.do(chromedp.Click(fmt.Sprintf(`#run-list .run-item[data-id=%q]`, id)))
	if reason := p.waitEnd(1); reason != agent.Answered {
		t.Fatalf("the stored run shows it ended %q, want %q", reason, agent.Answered)
	}
	stored := p.turns()
	if len(stored) != 1 {
		t.Fatalf("the page shows %d turns, want the stored run alone", len(stored))
	}
	checkEmailPipeline(t, stored[0], request)
	if got, want := step(t, stored[0].Rounds[1], "answer").Body, step(t, live.Rounds[1], "answer").Body; got != want {
		t.Errorf("the stored run answers %q, the live run answered %q", got, want)
	}
	if fmt.Sprint(stored[0]) != fmt.Sprint(live) {
		t.Errorf("the stored run's cards differ from the live run's:\nstored %+v\nlive   %+v", stored[0], live)
	}

	grow := eval[int64](p, `document.getElementById('chat').scrollHeight - document.getElementById('chat').clientHeight`)
	p.viewport(1400, 1000+grow)
	p.screenshot("history-reopened")
}

// serveWithHistory serves the demo model with its runs kept in the
// history database in dir, as `toolscope serve --data-dir dir` does. The
// database is closed when t ends, once the server has stopped and its
// hub has ended every run.
func serveWithHistory(t *testing.T, dir string) string {
	t.Helper()
	history, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Registered before serveWith's shutdown, so it runs after it.
	t.Cleanup(func() {
		if err := history.Close(); err != nil {
			t.Errorf("closing the history: %v", err)
		}
	})
	return serveWith(t, demoModel(0), func(cfg *server.Config) { cfg.Hub.SetArchive(history) })
}

// search types q in the Runs panel's search box, as a person does.
func (p *page) search(q string) {
	p.t.Helper()
	_ = eval[chromedp.Void](p, `document.getElementById('run-search').value = ''`)
	p.do(chromedp.SendKeys(chromedp.ID("run-search"), q))
}

// checkEmailPipeline checks the whole loop of the demo model's email
// request as the page draws it: the request, a round that calls send_mail
// and gives its result back, and a round that answers.
func checkEmailPipeline(t *testing.T, turn turnView, request string) {
	t.Helper()
	r1, r2 := callThenAnswer(t, turn, request)
	call := step(t, r1, "call")
	contains(t, "the parsed call", call.Body, "send_mail")
	contains(t, "argument to", call.Args["to"], "john@example.com")
	contains(t, "the executed tool", step(t, r1, "exec").Title, "Executed send_mail")
	contains(t, "the tool result", step(t, r1, "exec").Body, `"status":"sent"`)
	contains(t, "the answer", step(t, r2, "answer").Body, "Your email to john@example.com has been sent")
	contains(t, "the turn's end", turn.End, "Answered · 2 rounds")
	if strings.TrimSpace(r2.Stats["done_reason"]) == "" {
		t.Errorf("round 2 has no done reason: %v", r2.Stats)
	}
}
