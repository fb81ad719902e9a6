package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
)

// TestAPauseSaysUntilWhenItWaits: the controls of a pause say until when
// the server waits for them, as the paused event has it, and that the run
// is stopped then.
func TestAPauseSaysUntilWhenItWaits(t *testing.T) {
	t.Parallel()
	hub := runs.NewHub(20, runs.Limits{PauseTimeout: 2 * time.Hour})
	url := serveWith(t, demoModel(0), func(cfg *server.Config) { cfg.Hub = hub })
	p := open(t, url)
	p.do(chromedp.Click(chromedp.ID("set-step")))
	p.send(emailRequest)
	p.stepTo(1, "input")

	run, ok := hub.Latest()
	if !ok || run.Snapshot().Paused == nil {
		t.Fatal("the server has no paused run")
	}
	until := run.Snapshot().Paused.Until
	got := eval[map[string]string](p, `(() => {
  const time = document.querySelector('#chat .is-paused .step-deadline time');
  return { datetime: time?.dateTime ?? '', note: time?.parentElement.textContent ?? '' };
})()`)
	shown, err := time.Parse(time.RFC3339Nano, got["datetime"])
	if err != nil || !shown.Equal(until) {
		t.Errorf("the pause says it waits until %q; the server waits until %v", got["datetime"], until)
	}
	note := got["note"]
	if !strings.HasPrefix(note, "Waits until ") || !strings.HasSuffix(note, "; then the run is stopped.") || !strings.Contains(note, until.Local().Format(":04")) {
		t.Errorf("the pause's note = %q; want it to say until when it waits (%v), and that the run is stopped then", note, until.Local())
	}
}
