package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRawOutputTintsTheRegionsTokensSay replays token events whose
// regions no mark would give away: a bare call with no call event, which
// only the parser on the server knew to be a call, and thinking with a
// character outside the BMP (two UTF-16 units in the page). The raw
// output tints each piece as its event says.
func TestRawOutputTintsTheRegionsTokensSay(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	lines := []string{
		`{"toolscope":"v1","format":1}`,
		`{"seq":1,"type":"run_started","at_ms":0,"run":{"backend":"demo","model":"m","mode":"raw","demo":true,"message":"look it up","tools":["lookup"],"dialect":"pythonic",` +
			`"dialect_marks":{"name":"pythonic","marks":[{"text":"<think>","opens":"think"},{"text":"</think>","closes":"think"}]}}}`,
		`{"seq":2,"type":"round_started","at_ms":0,"round":1,"input":{"mode":"raw","messages":[{"role":"user","content":"look it up"}],"prompt":"look it up","think":false}}`,
		`{"seq":3,"type":"token","at_ms":0,"round":1,"text":"<think>plan 🙂","region":"think","pending":"<"}`,
		`{"seq":4,"type":"token","at_ms":0,"round":1,"text":"</think>","region":"think"}`,
		`{"seq":5,"type":"token","at_ms":0,"round":1,"text":"Sure: ","region":"text"}`,
		`{"seq":6,"type":"token","at_ms":0,"round":1,"text":"lookup(q='🙂')","region":"call"}`,
		`{"seq":7,"type":"token","at_ms":0,"round":1,"text":" done","region":"text"}`,
		`{"seq":8,"type":"round_finished","at_ms":0,"round":1,"stats":{"done_reason":"stop","prompt_tokens":1,"output_tokens":1,"load_ms":0,"prompt_ms":0,"eval_ms":0,"total_ms":0,"first_token_ms":0}}`,
		`{"seq":9,"type":"run_finished","at_ms":0,"text":"Sure: done","reason":"answered","rounds":1}`,
	}
	file := filepath.Join(t.TempDir(), "regions.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := open(t, url)
	p.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{file}))
	p.waitFor("the recording", `!document.getElementById('recording-bar').hidden && !document.getElementById('replay-step').disabled`)
	// Held back, the "<" shows apart until the next piece reads it.
	_ = eval[chromedp.Void](p, `(() => { const b = document.getElementById('replay-step'); while (!b.disabled && !document.querySelector('#chat .step-raw')) b.click(); })()`)
	if got := eval[string](p, `document.querySelector('.step-raw [data-slot=pending]').textContent`); got != "<" {
		t.Errorf("held back after the first piece: %q, want \"<\"", got)
	}
	_ = eval[chromedp.Void](p, `(() => { const b = document.getElementById('replay-step'); while (!b.disabled) b.click(); })()`)
	p.waitEnd(1)
	text := func(class string) []string {
		return eval[[]string](p, `[...document.querySelectorAll('.step-raw .`+class+`:not(.raw-tail)')].map(s => s.textContent)`)
	}
	if got := text("raw-call"); len(got) != 1 || got[0] != "lookup(q='🙂')" {
		t.Errorf("the call's tint covers %q, want the bare call the tokens say", got)
	}
	if got := text("raw-think"); len(got) != 1 || got[0] != "plan 🙂" {
		t.Errorf("the thinking's tint covers %q, want \"plan 🙂\"", got)
	}
	if got := text("raw-text"); strings.Join(got, "|") != "Sure: | done" {
		t.Errorf("the text's tint covers %q", got)
	}
	if got := eval[string](p, `document.querySelector('.step-raw [data-slot=pending]').textContent`); got != "" {
		t.Errorf("still held back once the reply ended: %q", got)
	}
}
