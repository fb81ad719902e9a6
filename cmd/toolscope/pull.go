package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
)

// pullCommand has Ollama pull a model, showing its progress: a bar on a
// terminal, lines elsewhere. A model already pulled is said to be so.
func pullCommand(ctx context.Context, args []string, stderr io.Writer) int {
	c := newBareCommand("pull", "[flags] MODEL", stderr)
	c.settings = engine.Defaults()
	host, _ := engine.FieldNamed(engine.SettingOllamaHost)
	c.withSetting(groupModel, host)
	positional, code, ok := c.parse(args, operands{"a model", "e.g. toolscope pull " + ollama.DefaultModel})
	if !ok {
		return code
	}
	b, err := ollama.New(ollama.Config{Host: c.settings.OllamaHost, Model: positional[0]})
	if err != nil {
		fmt.Fprintf(stderr, "toolscope pull: --ollama-host: %v\n", err)
		return exitUsage
	}
	version, err := b.Check(ctx)
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "%s is pulled already (Ollama %s at %s)\n", positional[0], version, b.BaseURL())
		return exitOK
	case !errors.Is(err, ollama.ErrNotPulled):
		return pullFailed(ctx, err, stderr)
	}
	if err := pull(ctx, b, stderr); err != nil {
		return pullFailed(ctx, err, stderr)
	}
	return exitOK
}

// pullFailed says why a pull did not happen, and returns the exit code.
func pullFailed(ctx context.Context, err error, stderr io.Writer) int {
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "toolscope pull: stopped; Ollama keeps what it downloaded, and the next pull goes on from there")
		return exitInterrupted
	}
	// A fix that names a setting (use the demo model) is for a run;
	// a pull wants only the step outside toolscope.
	var le *llm.Error
	if errors.As(err, &le) && le.Fix != nil && le.Fix.Do != "" {
		fmt.Fprintf(stderr, "toolscope pull: %s: %s\n", le.Problem, le.Fix.Do)
		return exitError
	}
	fmt.Fprintf(stderr, "toolscope pull: %v\n", err)
	return exitError
}

// pull pulls b's model, showing its progress on w, and then says how much
// it took.
func pull(ctx context.Context, b *ollama.Backend, w io.Writer) error {
	model := b.Info().Model
	view := newPullView(w, model)
	started := time.Now()
	var last ollama.Progress
	err := b.Pull(ctx, func(p ollama.Progress) {
		view.show(p)
		last = p
	})
	view.end()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "pulled %s (%s) in %s\n", model, ollama.Bytes(last.Total), time.Since(started).Round(time.Second))
	return nil
}

// pullView shows a pull's progress.
type pullView interface {
	show(ollama.Progress)
	end() // the pull is over, done or not
}

func newPullView(w io.Writer, model string) pullView {
	if isTerminal(w) {
		return &pullBar{w: w, model: model}
	}
	return &pullLines{w: w, model: model}
}

// isTerminal reports whether w is a terminal, where a bar can redraw
// itself; in a log its redraws would only clutter.
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// pullBar is a pull on a terminal: Ollama's first step on a line, then a
// bar of the bytes with their count, the speed and the time left, which
// names the steps after the download.
type pullBar struct {
	w      io.Writer
	model  string
	status string // the status line written last, before the bar
	bar    *progressbar.ProgressBar
}

func (v *pullBar) show(p ollama.Progress) {
	switch {
	case p.Total == 0 && p.Status != v.status:
		v.status = p.Status
		fmt.Fprintf(v.w, "%s: %s…\n", v.model, p.Status)
		return
	case p.Total == 0:
		return
	case p.Layer == "" && v.bar != nil:
		v.bar.Describe(v.model + ": " + p.Status + "…")
		return
	}
	if v.bar == nil {
		v.bar = progressbar.NewOptions64(p.Total, progressbar.OptionSetWriter(v.w), progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionSetPredictTime(false),
			progressbar.OptionShowDescriptionAtLineEnd(), progressbar.OptionClearOnFinish())
	}
	if p.Total != v.bar.GetMax64() {
		v.bar.ChangeMax64(p.Total)
	}
	v.bar.Describe(v.model + ": " + p.String())
	_ = v.bar.Set64(p.Completed) // its errors are a bar past its max, which ChangeMax64 prevents
}

func (v *pullBar) end() {
	if v.bar != nil {
		_ = v.bar.Finish() // clears the line, for what follows
	}
}

// pullLines is a pull in a log: a line for each of Ollama's steps, and
// one each time another tenth of the bytes is in.
type pullLines struct {
	w      io.Writer
	model  string
	status string
	tenth  int // the last tenth written; none for 0
}

func (v *pullLines) show(p ollama.Progress) {
	if p.Status != v.status && p.Status != "success" {
		v.status = p.Status
		fmt.Fprintf(v.w, "%s: %s\n", v.model, p.Status)
	}
	if p.Layer == "" || p.Total == 0 { // a layer Ollama has not sized yet
		return
	}
	if tenth := int(p.Completed * 10 / p.Total); tenth > v.tenth {
		v.tenth = tenth
		fmt.Fprintf(v.w, "%s: %d%% (%s)\n", v.model, p.Completed*100/p.Total, p)
	}
}

func (v *pullLines) end() {}

// offerPull asks on stdin, before serve settles the backend, whether to
// pull the model that "auto" would otherwise fall back from, when Ollama
// answers without it; if so it pulls it, and serve then finds it. It says
// nothing when there is nothing to offer: another backend, no Ollama, or
// the model pulled. A failed pull is said, and serve goes on with the demo
// model. ok is false when Ctrl-C ended it all, with code to exit with.
func offerPull(ctx context.Context, s engine.Settings, stdin io.Reader, stderr io.Writer) (code int, ok bool) {
	if s.Backend != engine.BackendAuto {
		return exitOK, true
	}
	b, err := ollama.New(ollama.Config{Host: s.OllamaHost, Model: s.Model})
	if err != nil {
		return exitOK, true // serve reports a bad address
	}
	check, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, err = b.Check(check)
	cancel()
	if !errors.Is(err, ollama.ErrNotPulled) {
		return exitOK, true
	}
	model := b.Info().Model
	question := "Pull " + model + " now"
	if size := ollama.SizeHint(model); size != "" {
		question += " (" + size + ")"
	}
	fmt.Fprintf(stderr, "Ollama at %s has no %s yet, so toolscope would start with the offline demo model.\n%s? [Y/n] ", b.BaseURL(), model, question)
	answer, err := readAnswer(ctx, stdin)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr)
		return exitInterrupted, false
	case err != nil || !yes(answer):
		if err != nil { // no answer at all: the line is left open
			fmt.Fprintln(stderr)
		}
		return exitOK, true
	}
	if err := pull(ctx, b, stderr); err != nil {
		if ctx.Err() != nil {
			return pullFailed(ctx, err, stderr), false
		}
		fmt.Fprintf(stderr, "toolscope: %v\n", err)
	}
	return exitOK, true
}

// readAnswer reads a line from r, or gives up when ctx ends (Ctrl-C).
func readAnswer(ctx context.Context, r io.Reader) (string, error) {
	type line struct {
		text string
		err  error
	}
	read := make(chan line, 1)
	go func() { // left reading when ctx ends first; the process is ending then
		text, err := bufio.NewReader(r).ReadString('\n')
		if err == io.EOF && text != "" {
			err = nil
		}
		read <- line{text, err}
	}()
	select {
	case l := <-read:
		return l.text, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// yes reads an answer to a [Y/n] question: Enter alone is yes.
func yes(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "", "y", "yes":
		return true
	}
	return false
}
