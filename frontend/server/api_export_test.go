package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/recording"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// TestExportIsARecording exports a finished run: an attachment whose first
// line says what wrote it and how the run was set up, and whose other
// lines are the event stream's data, byte for byte.
func TestExportIsARecording(t *testing.T) {
	ts := start(t, setup{})
	id, conv := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup", "dialect": "pythonic"}`)
	stream := rawEventData(t, ts.url+"/api/runs/"+id+"/events")

	resp, err := http.Get(ts.url + "/api/runs/" + id + "/export")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export = %d %s", resp.StatusCode, body)
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="toolscope-`+id+`.jsonl"` {
		t.Errorf("Content-Disposition = %q", cd)
	}
	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	if got, want := lines[1:], stream; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the export's events differ from the stream's:\nexport %d lines\nstream %d lines", len(got), len(want))
	}
	var head map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"toolscope", "format", "exported_at", "run", "settings", "model"} {
		if _, ok := head[field]; !ok {
			t.Errorf("the header has no %q: %s", field, lines[0])
		}
	}

	h, events, err := recording.Read(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if h.Format != recording.Format || h.Run.ID != id || h.Run.ConversationID != conv || h.Run.Source != "page" ||
		!strings.HasPrefix(h.Run.Message, "Send an email") || h.Run.StartedAt.IsZero() {
		t.Errorf("header = %+v", h)
	}
	// The header's settings are those run_started recorded.
	if !h.Model.Demo || string(h.Settings) != string(events[0].Run.Settings) || !strings.Contains(string(h.Settings), `"dialect":"pythonic"`) {
		t.Errorf("settings = %s, model = %+v; want run_started's settings %s", h.Settings, h.Model, events[0].Run.Settings)
	}
	if last := events[len(events)-1]; len(events) != len(stream) || last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Errorf("read %d events ending %+v", len(events), last)
	}
}

func TestExportRefusals(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}})
	if status, v := ts.get(t, "/api/runs/r-nothing/export"); status != http.StatusNotFound || !strings.Contains(v["error"].(string), "r-nothing") {
		t.Errorf("unknown run: %d %v", status, v)
	}
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup"}`)
	<-g.Started
	status, v := ts.get(t, "/api/runs/"+id+"/export")
	g.Release()
	if status != http.StatusConflict || !strings.Contains(v["error"].(string), "once it has finished") {
		t.Errorf("a live run: %d %v", status, v)
	}
}

// rawEventData reads an event stream to its end and returns each frame's
// data line as sent.
func rawEventData(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var data []string
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	return data
}
