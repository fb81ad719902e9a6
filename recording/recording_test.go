package recording_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/recording"
)

func TestWriteThenRead(t *testing.T) {
	h := recording.Header{Toolscope: "v9.9.9", Format: recording.Format, Run: recording.Run{ID: "r-1", Message: "hi"},
		Settings: json.RawMessage(`{"backend":"demo","dialect":"hermes","think":true}`)}
	events := []agent.Event{
		{Seq: 1, Type: agent.RunStarted, Run: &agent.RunInfo{}},
		{Seq: 2, Type: agent.Token, AtMS: 5, Round: 1, Text: "<tool_call>"},
		{Seq: 3, Type: agent.RunFinished, AtMS: 9, Reason: agent.Answered, Text: "done"},
	}
	var b bytes.Buffer
	if err := recording.Write(&b, h, events); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if want, _ := json.Marshal(events[1]); len(lines) != 4 || lines[2] != string(want) {
		t.Fatalf("an event's line is not its JSON:\n%s", b.String())
	}
	gotH, got, err := recording.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if gotH.Toolscope != "v9.9.9" || gotH.Run.ID != "r-1" || string(gotH.Settings) != string(h.Settings) || len(got) != 3 || got[1].Text != "<tool_call>" {
		t.Fatalf("read %+v %+v", gotH, got)
	}
}

// TestOlderRecordingReads reads a file as toolscope 0.1.0 wrote it: no
// dialect marks on run_started, no starts_in_thinking, no run start time.
func TestOlderRecordingReads(t *testing.T) {
	f, err := os.Open("testdata/recording-v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := recording.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if h.Toolscope != "0.1.0" || h.Model.Model != "toolscope-demo" || !h.Run.StartedAt.IsZero() || !strings.HasPrefix(string(h.Settings), `{"backend":"demo","model":"toolscope-demo"`) {
		t.Errorf("header = %+v", h)
	}
	first, last := events[0], events[len(events)-1]
	if first.Type != agent.RunStarted || len(first.Run.DialectMarks.Marks) != 0 || last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Errorf("events run from %+v to %+v", first, last)
	}
}

func TestBlankLinesAndCRLF(t *testing.T) {
	file := "\r\n{\"toolscope\":\"v1\",\"format\":1}\r\n\r\n{\"seq\":1,\"type\":\"run_started\",\"run\":{}}\r\n{\"seq\":2,\"type\":\"some_later_type\"}\r\n\r\n"
	_, events, err := recording.Read(strings.NewReader(file))
	if err != nil || len(events) != 2 || events[1].Type != "some_later_type" {
		t.Fatalf("read %v, %v", events, err)
	}
}

func TestBadFilesSayWhatIsWrong(t *testing.T) {
	const header = `{"toolscope":"v1","format":1}` + "\n"
	for _, tc := range []struct {
		name, file string
		kind       recording.Kind
		line       int
		says       string
	}{
		{"empty", "", recording.NotRecording, 0, "this is not a toolscope recording: the file is empty"},
		{"not JSON", "hello\n", recording.NotRecording, 1, "the first line is not a JSON object"},
		{"an event stream", `{"seq":1,"type":"run_started"}` + "\n", recording.NotRecording, 1, `this is not a toolscope recording: the first line has no "toolscope" field`},
		{"newer format", `{"toolscope":"v3","format":2}` + "\n", recording.NewerFormat, 1, "format 2 is newer than this toolscope reads (1): update toolscope"},
		{"no format", `{"toolscope":"v1"}` + "\n", recording.BadHeader, 1, "line 1 is not a valid recording header"},
		{"bad header field", `{"toolscope":"v1","format":"one"}` + "\n", recording.BadHeader, 1, "line 1 is not a valid recording header"},
		{"bad event", header + `{"seq":1,"type":"run_started","run":{}}` + "\n" + `{"seq":2,"type":` + "\n", recording.BadEvent, 3, "line 3 is not an event: "},
		{"no type", header + `{"seq":1}` + "\n", recording.BadEvent, 2, `line 2 is not an event: it has no "type"`},
		{"no seq", header + `{"type":"token"}` + "\n", recording.BadEvent, 2, `line 2 is not an event: it has no "seq"`},
		{"out of order", header + `{"seq":2,"type":"token"}` + "\n" + `{"seq":2,"type":"token"}` + "\n", recording.BadEvent, 3, "its seq 2 does not follow 2"},
		{"null field", header + `{"seq":1,"type":"run_started","run":null}` + "\n", recording.BadEvent, 2, "line 2 is not an event: run_started has no run"},
		{"cut header", `{"toolscope":"v1","for`, recording.NotRecording, 1, "the first line is not a JSON object"},
		{"bad last line", header + `{"seq":1,"type":"token"}` + "\n" + `{"seq":2}`, recording.BadEvent, 3, `line 3 is not an event: it has no "type"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := recording.Read(strings.NewReader(tc.file))
			var re *recording.Error
			if !errors.As(err, &re) || re.Kind != tc.kind || re.Line != tc.line || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %#v (%v), want kind %d at line %d saying %q", re, err, tc.kind, tc.line, tc.says)
			}
		})
	}
}

// TestEventsLackingTheirFieldAreRefused: each front end draws these
// events from one field that the agent always sets.
func TestEventsLackingTheirFieldAreRefused(t *testing.T) {
	for typ, field := range map[agent.Type]string{
		agent.RunStarted: "run", agent.ToolsSelected: "selection", agent.RoundStarted: "input",
		agent.ToolCallOpened: "call", agent.ToolCallDelta: "call", agent.ToolCallParsed: "call",
		agent.ToolCallInvalid: "call", agent.ToolStarted: "call", agent.ToolFinished: "call",
		agent.RoundFinished: "stats", agent.Paused: "pause", agent.Edited: "change",
	} {
		file := `{"toolscope":"v1","format":1}` + "\n" + `{"seq":1,"type":"token","round":1,"text":"hi"}` + "\n" +
			`{"seq":2,"type":"` + string(typ) + `","round":1}` + "\n"
		_, _, err := recording.Read(strings.NewReader(file))
		want := "line 3 is not an event: " + string(typ) + " has no " + field
		var re *recording.Error
		if !errors.As(err, &re) || re.Kind != recording.BadEvent || err.Error() != want {
			t.Errorf("%s: error %v, want %q", typ, err, want)
		}
	}
}

func TestByteOrderMarkIsSkipped(t *testing.T) {
	file := "\uFEFF" + `{"toolscope":"v1","format":1}` + "\r\n" + `{"seq":1,"type":"token","text":"\uFEFF"}` + "\r\n"
	h, events, err := recording.Read(strings.NewReader(file))
	if err != nil || h.Toolscope != "v1" || len(events) != 1 || events[0].Text != "\uFEFF" {
		t.Fatalf("read %+v %+v, %v", h, events, err)
	}
}

// TestCutFileGivesTheEventsBeforeTheCut: a download stopped short ends
// mid-line; what came before it can still be played.
func TestCutFileGivesTheEventsBeforeTheCut(t *testing.T) {
	file := `{"toolscope":"v1","format":1}` + "\n" + `{"seq":1,"type":"token","text":"a"}` + "\n" + `{"seq":2,"type":"token","te`
	_, events, err := recording.Read(strings.NewReader(file))
	var re *recording.Error
	if !errors.As(err, &re) || re.Kind != recording.Cut || re.Line != 3 || err.Error() != "the file is cut at line 3: it ends mid-event" {
		t.Fatalf("error %v, want the cut at line 3", err)
	}
	if len(events) != 1 || events[0].Text != "a" {
		t.Errorf("events before the cut = %+v", events)
	}
}

// endless repeats its text forever, as /dev/zero or `yes` do.
type endless struct {
	text []byte
	at   int
}

func (r *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.text[r.at%len(r.text)]
		r.at++
	}
	return len(p), nil
}

// TestEndlessInputStopsAtTheLimits: no recording is larger than a run may
// record, so reading stops there instead of filling memory.
func TestEndlessInputStopsAtTheLimits(t *testing.T) {
	header := `{"toolscope":"v1","format":1}` + "\n"
	for _, tc := range []struct {
		name  string
		input io.Reader
		kind  recording.Kind
		line  int
		says  string
	}{
		{"no line end", &endless{text: []byte{0}}, recording.TooLong, 1, fmt.Sprintf("line 1 is longer than %d MiB", recording.MaxLineBytes>>20)},
		{"blank lines", &endless{text: []byte("\n")}, recording.TooLarge, 0, fmt.Sprintf("the file is larger than %d MiB", recording.MaxBytes>>20)},
		{"events", io.MultiReader(strings.NewReader(header), &seqs{}), recording.TooManyEvents, recording.MaxEvents + 2,
			fmt.Sprintf("line %d is one event more than the %d a recording may hold", recording.MaxEvents+2, recording.MaxEvents)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, events, err := recording.Read(tc.input)
			var re *recording.Error
			if !errors.As(err, &re) || re.Kind != tc.kind || re.Line != tc.line || !strings.Contains(err.Error(), tc.says) || events != nil {
				t.Fatalf("error %v (%d events), want kind %d at line %d saying %q", err, len(events), tc.kind, tc.line, tc.says)
			}
		})
	}
}

// seqs writes token events forever, one a line.
type seqs struct {
	n    int
	left []byte
}

func (r *seqs) Read(p []byte) (int, error) {
	if len(r.left) == 0 {
		r.n++
		r.left = fmt.Appendf(nil, `{"seq":%d,"type":"token"}`+"\n", r.n)
	}
	n := copy(p, r.left)
	r.left = r.left[n:]
	return n, nil
}

// stalled sends a header, then blocks, as a pipe nobody writes to does,
// until release is closed.
type stalled struct {
	sent    bool
	blocked chan struct{}
	release chan struct{}
}

func (r *stalled) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, `{"toolscope":"v1","format":1}`+"\n"), nil
	}
	close(r.blocked)
	<-r.release
	return 0, io.EOF
}

func TestReadingEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := recording.ReadContext(ctx, &endless{text: []byte("{}\n")}); !errors.Is(err, context.Canceled) {
		t.Errorf("an endless reader with an ended context: %v, want context.Canceled", err)
	}

	r := &stalled{blocked: make(chan struct{}), release: make(chan struct{})}
	defer close(r.release)
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		<-r.blocked
		cancel()
	}()
	if _, _, err := recording.ReadContext(ctx, r); !errors.Is(err, context.Canceled) {
		t.Errorf("a reader that blocks: %v, want context.Canceled", err)
	}
}
