package recording_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/recording"
)

func TestWriteThenRead(t *testing.T) {
	think := true
	h := recording.Header{Toolscope: "v9.9.9", Format: recording.Format, Run: recording.Run{ID: "r-1", Message: "hi"},
		Settings: recording.Settings{Backend: "demo", Dialect: "hermes", Think: &think}}
	events := []agent.Event{
		{Seq: 1, Type: agent.RunStarted},
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
	if gotH.Toolscope != "v9.9.9" || gotH.Run.ID != "r-1" || *gotH.Settings.Think != true || len(got) != 3 || got[1].Text != "<tool_call>" {
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
	if h.Toolscope != "0.1.0" || h.Model.Model != "toolscope-demo" || !h.Run.StartedAt.IsZero() {
		t.Errorf("header = %+v", h)
	}
	first, last := events[0], events[len(events)-1]
	if first.Type != agent.RunStarted || len(first.Run.DialectMarks.Marks) != 0 || last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Errorf("events run from %+v to %+v", first, last)
	}
}

func TestBlankLinesAndCRLF(t *testing.T) {
	file := "\r\n{\"toolscope\":\"v1\",\"format\":1}\r\n\r\n{\"seq\":1,\"type\":\"run_started\"}\r\n{\"seq\":2,\"type\":\"some_later_type\"}\r\n\r\n"
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
		{"bad event", header + `{"seq":1,"type":"run_started"}` + "\n" + `{"seq":2,"type":` + "\n", recording.BadEvent, 3, "line 3 is not an event: "},
		{"no type", header + `{"seq":1}` + "\n", recording.BadEvent, 2, `line 2 is not an event: it has no "type"`},
		{"no seq", header + `{"type":"token"}` + "\n", recording.BadEvent, 2, `line 2 is not an event: it has no "seq"`},
		{"out of order", header + `{"seq":2,"type":"token"}` + "\n" + `{"seq":2,"type":"token"}` + "\n", recording.BadEvent, 3, "its seq 2 does not follow 2"},
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
