package web_test

import (
	"bytes"
	"fmt"
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

// TestRecordingCutMidLinePlaysToTheCut: a file whose last line stops
// short, as a copy cut off leaves it, opens with the events before the
// cut, as toolscope replay plays it, and says where it is cut.
func TestRecordingCutMidLinePlaysToTheCut(t *testing.T) {
	t.Parallel()
	url := serve(t, demoModel(0))
	runThroughAPI(t, url, emailRequest)
	whole, _ := exportRun(t, url)
	body, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := body[:len(body)-20] // inside run_finished, with no line end
	file := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(file, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	p := open(t, url)
	p.do(chromedp.SetUploadFiles(chromedp.ID("recording-file"), []string{file}))
	p.waitFor("the recording to open", `!document.getElementById('recording-bar').hidden`)
	contains(t, "the note", eval[string](p, `document.getElementById('recording-error').textContent`),
		fmt.Sprintf("cut.jsonl: the file is cut at line %d: it ends mid-event", bytes.Count(cut, []byte("\n"))+1))
}
