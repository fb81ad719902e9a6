package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/recording"
)

// record runs message on the demo model and writes the run as a recording.
func record(t *testing.T, message string) (path string, events []agent.Event) {
	t.Helper()
	e, err := engine.Start(t.Context(), engine.Settings{Backend: engine.BackendDemo, DemoDelay: time.Millisecond}, t.Output())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a, err := e.Agent(e.Settings())
	if err != nil {
		t.Fatal(err)
	}
	a.Run(t.Context(), &agent.Conversation{}, message, func(ev agent.Event) { events = append(events, ev) })
	h := recording.NewHeader(recording.Run{ID: "r-test", Message: message, Source: "page", StartedAt: time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)}, events)
	path = filepath.Join(t.TempDir(), "run.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := recording.Write(f, h, events); err != nil {
		t.Fatal(err)
	}
	return path, events
}

func TestReplayPlaysARecording(t *testing.T) {
	path, _ := record(t, "Send an email to john@example.com about tomorrow's standup")
	r := toolscope(t, "", "replay", "--speed", "0", path)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "john@example.com") {
		t.Errorf("the recorded answer is not on stdout: %q", r.stdout)
	}
	first, _, _ := strings.Cut(r.stderr, "\n")
	if !strings.HasPrefix(first, "recording of toolscope-demo from ") || !strings.HasSuffix(first, ", no model is running") || !strings.Contains(first, "2026") {
		t.Errorf("the first line does not say it is a recording: %q", first)
	}
	contains(t, r.stderr, "tool: send_mail(")
}

func TestReplayJSONIsTheRecordedEvents(t *testing.T) {
	path, events := record(t, "Cancel the standup meeting next Monday")
	r := toolscope(t, "", "replay", path, "--speed=0", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != exitOK || len(lines) != len(events) {
		t.Fatalf("exit %d, %d lines for %d events\n%s", r.code, len(lines), len(events), r.stderr)
	}
	for i, line := range lines {
		var e agent.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Seq != events[i].Seq || e.Type != events[i].Type || e.Text != events[i].Text {
			t.Fatalf("line %d = %s (%v), recorded %+v", i+1, line, err, events[i])
		}
	}
}

// TestReplayOlderRecording plays the file of an older toolscope kept as a
// fixture: its events lack fields added since.
func TestReplayOlderRecording(t *testing.T) {
	r := toolscope(t, "", "replay", "--speed", "0", filepath.Join("..", "..", "recording", "testdata", "recording-v1.jsonl"))
	if r.code != exitOK || !strings.Contains(r.stdout, "john@example.com") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	contains(t, r.stderr, "recording of toolscope-demo from ")
	contains(t, r.stderr, "Dec 2026")
	contains(t, r.stderr, ", no model is running")
}

func TestReplayExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := `{"toolscope":"v1","format":1,"model":{"model":"qwen3"}}` + "\n"
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no file", []string{"replay"}, exitUsage, "toolscope replay needs a recording file"},
		{"missing file", []string{"replay", filepath.Join(dir, "nothing.jsonl")}, exitUsage, "no such file"},
		{"bad speed", []string{"replay", "--speed", "-1", write("ok.jsonl", header)}, exitUsage, "--speed -1 must be 0 or more"},
		{"foreign file", []string{"replay", write("events.jsonl", `{"seq":1,"type":"run_started"}`+"\n")}, exitUsage, `the first line has no "toolscope" field`},
		{"newer format", []string{"replay", write("new.jsonl", `{"toolscope":"v5","format":2}`+"\n")}, exitUsage, "format 2 is newer than this toolscope reads (1): update toolscope"},
		{"bad line", []string{"replay", write("bad.jsonl", header+`{"seq":1,"type":"run_started","run":{}}`+"\nnot json\n")}, exitUsage, "bad.jsonl: line 3 is not an event: "},
		{"no call", []string{"replay", write("nocall.jsonl", header+`{"seq":1,"type":"tool_finished","round":1}`+"\n")}, exitUsage, "nocall.jsonl: line 2 is not an event: tool_finished has no call"},
		{"byte order mark", []string{"replay", "--speed=0", write("bom.jsonl", "\uFEFF"+header+`{"seq":1,"type":"run_finished","reason":"answered","text":"hi"}`+"\r\n")}, exitOK, "no model is running"},
		{"not answered", []string{"replay", "--speed=0", write("max.jsonl", header+`{"seq":1,"type":"run_finished","reason":"max_rounds","rounds":3}`+"\n")}, exitError, "stopped: the model still called tools after 3 rounds"},
		{"cut short", []string{"replay", "--speed=0", write("short.jsonl", header)}, exitError, "recording of qwen3 from an unknown date, no model is running\n" +
			"toolscope replay: the recording ends before the run did: what it holds was played\n"},
		{"cut mid-line", []string{"replay", "--speed=0", write("cut.jsonl", header+`{"seq":1,"type":"error","error":"it broke"}`+"\n"+`{"seq":2,"type":"run_fin`)}, exitError,
			"error: it broke\ntoolscope replay: " + filepath.Join(dir, "cut.jsonl") + ": the file is cut at line 3: it ends mid-event; the events before it were played\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := toolscope(t, "", tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			contains(t, r.stderr, tc.says)
		})
	}
}

// TestReplayKeepsTheRecordedPace checks the waits between events: the
// recorded gaps divided by the speed, none at speed 0.
func TestReplayKeepsTheRecordedPace(t *testing.T) {
	events := []agent.Event{{Seq: 1, AtMS: 0}, {Seq: 2, AtMS: 100}, {Seq: 3, AtMS: 100}, {Seq: 4, AtMS: 400, Type: agent.RunFinished, Reason: agent.Answered}}
	for _, tc := range []struct {
		speed float64
		want  []time.Duration
	}{
		{1, []time.Duration{100 * time.Millisecond, 0, 300 * time.Millisecond}},
		{2, []time.Duration{50 * time.Millisecond, 0, 150 * time.Millisecond}},
		{0.5, []time.Duration{200 * time.Millisecond, 0, 600 * time.Millisecond}},
		{0, nil},
	} {
		var waits []time.Duration
		var rendered int
		reason := play(context.Background(), events, tc.speed, func(agent.Event) { rendered++ }, func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		})
		if !slices.Equal(waits, tc.want) || rendered != len(events) || reason != agent.Answered {
			t.Errorf("speed %g: waits %v, rendered %d, reason %q; want waits %v", tc.speed, waits, rendered, reason, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var rendered int
	play(ctx, events, 1, func(agent.Event) { rendered++ }, sleep)
	if rendered != 1 {
		t.Errorf("after the context ended, %d events were rendered, want 1", rendered)
	}
}

func contains(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%q does not contain %q", got, want)
	}
}

// TestReplayHelpSharesTheOutputFlags: replay lists its flags by group as
// the other subcommands do, its output flags worded as run's, and no
// setting flag, since it runs no model.
func TestReplayHelpSharesTheOutputFlags(t *testing.T) {
	replay := toolscope(t, "", "replay", "-h")
	run := toolscope(t, "", "run", "-h")
	if replay.code != exitOK {
		t.Fatalf("replay -h exits %d", replay.code)
	}
	if !strings.HasPrefix(replay.stderr, "Usage: toolscope replay [flags] FILE\n\nOutput:\n  --speed n\n") {
		t.Errorf("replay -h:\n%s", replay.stderr)
	}
	_, runOutput, _ := strings.Cut(run.stderr, "\nOutput:\n")
	if runOutput == "" || !strings.Contains(replay.stderr, runOutput) {
		t.Errorf("replay -h lacks run's output flags:\n%s\nreplay -h:\n%s", runOutput, replay.stderr)
	}
	for _, unwanted := range []string{"--backend", "--retriever", "$TOOLSCOPE_"} {
		if strings.Contains(replay.stderr, unwanted) {
			t.Errorf("replay -h lists %s", unwanted)
		}
	}
}
