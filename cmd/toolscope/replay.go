package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/recording"
)

// replayCommand plays a recording (GET /api/runs/{id}/export) through the
// terminal renderer at its recorded pace: a run shown again where no model
// runs. Its exit code is the recorded run's, as run would have given it.
func replayCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := newBareCommand("replay", "[flags] FILE", stderr)
	speed := 1.0
	c.add(groupOutput, "speed", "n", "how many times faster than recorded to play; 0 plays without pauses", (*floatValue)(&speed))
	c.withOutput()
	positional, code, ok := parseArgs(c.fs, args, operands{"a recording file", "e.g. toolscope replay run.jsonl (GET /api/runs/{id}/export makes one)"}, stderr)
	if !ok {
		return code
	}
	if speed < 0 {
		fmt.Fprintf(stderr, "toolscope replay: --speed %g must be 0 or more\n", speed)
		return exitUsage
	}
	h, events, err := readRecording(ctx, positional[0])
	var cut *recording.Error
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case errors.As(err, &cut) && cut.Kind == recording.Cut:
		// What came before the cut still plays; the cut is told after it.
	case err != nil:
		fmt.Fprintf(stderr, "toolscope replay: %v\n", err)
		return exitUsage
	}
	fmt.Fprintln(stderr, recordingLabel(h))
	reason := play(ctx, events, speed, c.renderer(stdout, stderr), sleep)
	switch {
	case ctx.Err() != nil:
		return exitInterrupted
	case err != nil:
		fmt.Fprintf(stderr, "toolscope replay: %v; the events before it were played\n", err)
	case reason == "":
		fmt.Fprintln(stderr, "toolscope replay: the recording ends before the run did: what it holds was played")
	}
	switch reason {
	case agent.Answered:
		return exitOK
	case agent.CutOff:
		return exitCutOff
	}
	return exitError
}

// readRecording reads the recording at path until ctx ends: a named pipe
// may wait for a writer, then for lines, for ever.
func readRecording(ctx context.Context, path string) (recording.Header, []agent.Event, error) {
	f, err := openFile(ctx, path)
	if err != nil {
		return recording.Header{}, nil, err
	}
	defer f.Close()
	// Closing the file ends the read that ReadContext leaves behind.
	defer context.AfterFunc(ctx, func() { f.Close() })()
	h, events, err := recording.ReadContext(ctx, f)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return h, events, err
}

// openFile opens path, or gives up when ctx ends: opening a named pipe
// blocks until something opens it to write.
func openFile(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	result := make(chan opened)
	go func() {
		f, err := os.Open(path)
		select {
		case result <- opened{f, err}:
		case <-ctx.Done():
			if f != nil {
				f.Close()
			}
		}
	}()
	select {
	case o := <-result:
		return o.f, o.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// recordingLabel says, before anything else, that no model is answering.
func recordingLabel(h recording.Header) string {
	model := h.Model.Model
	if model == "" {
		model = "an unnamed model"
	}
	when := h.Run.StartedAt
	if when.IsZero() {
		when = h.ExportedAt // older recordings have no start time
	}
	date := "an unknown date"
	if !when.IsZero() {
		date = when.Local().Format("2 Jan 2006 15:04 MST")
	}
	return fmt.Sprintf("recording of %s from %s, no model is running", model, date)
}

// play renders events, waiting between two the time recorded between
// them divided by speed (none at speed 0), until the last or until ctx
// ends. It returns how the recorded run finished; "" when the recording
// does not say.
func play(ctx context.Context, events []agent.Event, speed float64, render func(agent.Event), wait func(context.Context, time.Duration) error) agent.Reason {
	var reason agent.Reason
	for i, e := range events {
		if i > 0 && speed > 0 {
			gap := time.Duration(float64(e.AtMS-events[i-1].AtMS) / speed * float64(time.Millisecond))
			if wait(ctx, max(gap, 0)) != nil {
				return reason
			}
		}
		render(e)
		if e.Type == agent.RunFinished {
			reason = e.Reason
		}
	}
	return reason
}

// sleep waits for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
