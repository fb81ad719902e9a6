package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
)

// TestEvalsView runs the bundled stubs suite on the demo in two call
// formats, with and without 10 distractors, with and without tool
// retrieval: the table colours each cell by its pass rate, a cell lists
// its cases, a case opens its run in the chat, and the charts draw a line
// with retrieval and one without through the tools offered.
func TestEvalsView(t *testing.T) {
	url := serveWith(t, demoModel(0), func(c *server.Config) { c.Hub = runs.NewHub(100) }) // every case's run kept
	p := open(t, url)
	p.do(chromedp.Click(chromedp.ID("open-evals")))
	p.waitFor("the bundled suites", `document.querySelectorAll('#evals-dialog [data-slot=suite] option').length === 4`)
	p.do(chromedp.SetValue(chromedp.CSS(`#evals-dialog [data-slot=suite]`), "stubs"))
	eval[bool](p, `(() => {
		const d = document.getElementById('evals-dialog');
		for (const box of d.querySelectorAll('input[name=dialects], input[name=distractors], input[name=tools_top_k]')) {
			box.checked = ['hermes', 'pythonic', '0', '10', 'auto'].includes(box.value);
		}
		return true;
	})()`)
	p.do(chromedp.Click(chromedp.CSS(`#evals-dialog [data-slot=start]`)))
	p.waitFor("the eval to finish", `document.querySelector('#evals-dialog [data-slot=status]').textContent.startsWith('stubs: 80 case runs in 8 cells')`)

	rows := eval[[][]string](p, `[...document.querySelectorAll('#evals-dialog tbody tr')].map(tr => [...tr.cells].map(c => c.textContent).concat(tr.cells[1].className))`)
	if len(rows) != 8 {
		t.Fatalf("the table has %d rows, want 8: %v", len(rows), rows)
	}
	for _, want := range [][]string{{"dialect=hermes tools_top_k=0 distractors=0", "80%", "8 of 10", "rate-high"}, {"dialect=pythonic tools_top_k=0 distractors=0", "80%", "8 of 10", "rate-high"}} {
		found := false
		for _, r := range rows {
			found = found || r[0] == want[0] && r[1] == want[1] && r[3] == want[2] && strings.Contains(r[5], want[3])
		}
		if !found {
			t.Errorf("no row %v in %v", want, rows)
		}
	}
	if demo := eval[bool](p, `!document.querySelector('#evals-dialog [data-slot=demo]').hidden`); !demo {
		t.Error("the demo's note is hidden")
	}
	charts := eval[[]string](p, `[...document.querySelectorAll('#evals-dialog svg.eval-chart')].map(s =>
		[s.querySelector('.chart-title').textContent, s.querySelectorAll('polyline').length, s.querySelectorAll('circle').length,
		 ...[...s.querySelectorAll('.chart-legend, .chart-tick-x')].map(t => t.textContent)].join(' '))`)
	want := []string{
		"Pass rate against tools offered 2 4 3 13 without retrieval with retrieval (auto)",
		"Prompt tokens against tools offered 2 4 3 13 without retrieval with retrieval (auto)",
	}
	if strings.Join(charts, "|") != strings.Join(want, "|") {
		t.Errorf("charts = %q, want %q: a line without retrieval and one with, each a point at 3 tools and at 13", charts, want)
	}
	p.viewport(1280, 720)
	p.screenshot("evals-1280x720")

	p.do(chromedp.Click(chromedp.CSS(`#evals-dialog tbody tr[data-cell="1"]`)))
	p.waitFor("the cell's cases", `document.querySelectorAll('#evals-dialog [data-slot=case-list] li').length === 10`)
	first := eval[[]string](p, `(() => { const li = document.querySelector('#evals-dialog [data-slot=case-list] li'); return [li.querySelector('.case-verdict').textContent, li.querySelector('strong').textContent, li.querySelector('a').getAttribute('href')]; })()`)
	if first[0] == "pass" || !strings.HasPrefix(first[2], "#run=r-") {
		t.Fatalf("the first case listed = %v, want a failure with a link to its run", first)
	}
	p.viewport(1920, 1080)
	p.screenshot("evals-1920x1080")

	p.do(chromedp.Click(chromedp.CSS(`#evals-dialog [data-slot=case-list] li a`)))
	p.waitFor("the case's run in the chat", `!document.getElementById('evals-dialog').open && location.hash === `+"`"+`${'`+first[2]+`'}`+"`"+` && document.querySelectorAll('#chat .turn').length === 1`)
	p.waitEnd(1)
	if msg := p.turns()[0].Message; !strings.Contains(msg, "maria@example.org") && !strings.Contains(msg, "France") {
		t.Errorf("the run opened asks %q, want a failing case's request", msg)
	}

	// A reloaded page finds the server's eval again.
	p.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("message")))
	p.waitFor("the page script", `document.getElementById('health-status').textContent !== 'checking…'`)
	p.do(chromedp.Click(chromedp.ID("open-evals")))
	p.waitFor("the eval after a reload", `document.querySelectorAll('#evals-dialog tbody tr').length === 8 &&
		document.querySelector('#evals-dialog [data-slot=status]').textContent.startsWith('stubs: 80 case runs')`)
}
