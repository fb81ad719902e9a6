package web_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRecordingLackingAFieldIsRefused: an event without the field its
// type is drawn from (here run_started without run) is refused when the
// file is opened, naming its line, instead of breaking the page midway.
func TestRecordingLackingAFieldIsRefused(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	file := filepath.Join(t.TempDir(), "norun.jsonl")
	text := `{"toolscope":"v1","format":1}` + "\n" + `{"seq":1,"type":"run_started","at_ms":0}` + "\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := open(t, url)
	p.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{file}))
	p.waitFor("the error", `!document.getElementById('recording-error').hidden`)
	contains(t, "the error", eval[string](p, `document.getElementById('recording-error').textContent`), "norun.jsonl: line 2 is not an event: run_started has no run")
	if eval[bool](p, `!document.getElementById('recording-bar').hidden`) {
		t.Error("the refused recording was opened")
	}
}
