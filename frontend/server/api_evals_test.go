package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/runs"
)

// evalFrame is one frame of an eval's event stream.
type evalFrame struct {
	id   int
	typ  string
	data map[string]any
}

// evalEvents reads an eval's event stream until it ends.
func (ts *testServer) evalEvents(t *testing.T, path string, lastEventID int) []evalFrame {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.url+path, nil)
	if lastEventID > 0 {
		req.Header.Set("Last-Event-ID", strconv.Itoa(lastEventID))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", path, resp.StatusCode)
	}
	var out []evalFrame
	readSSE(t, resp, func(id int, typ string, data []byte) {
		f := evalFrame{id: id, typ: typ}
		if err := json.Unmarshal(data, &f.data); err != nil {
			t.Fatalf("data is not JSON: %v", err)
		}
		out = append(out, f)
	})
	return out
}

func (ts *testServer) startEval(t *testing.T, body string) (id, events string) {
	t.Helper()
	status, v := ts.post(t, "/api/evals", body)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/evals %s = %d %v", body, status, v)
	}
	return v["id"].(string), v["events"].(string)
}

// The demo plays its script the same way each time: the stubs suite
// passes 8 of its 10 cases in each dialect, failing drop-a-line (no call)
// and capital-of-france.
func TestEvalOfABundledSuiteInTwoDialects(t *testing.T) {
	ts := start(t, setup{keep: 20}) // the hub keeps every case's run
	if status, _ := ts.call(t, "GET", "/api/evals/latest", "", nil); status.StatusCode != http.StatusNoContent {
		t.Errorf("the latest eval before any = %d, want 204", status.StatusCode)
	}
	id, events := ts.startEval(t, `{"suite": "stubs", "dialects": ["hermes", "pythonic"]}`)
	frames := ts.evalEvents(t, events, 0)
	if len(frames) != 21 || frames[20].typ != "eval_finished" {
		t.Fatalf("the stream sent %d frames, the last %q; want 20 case_finished then eval_finished", len(frames), frames[len(frames)-1].typ)
	}
	for i, f := range frames[:20] {
		if f.typ != "case_finished" || f.id != i+1 {
			t.Errorf("frame %d is %q id %d, want case_finished id %d", i, f.typ, f.id, i+1)
		}
	}
	if resumed := ts.evalEvents(t, events, 18); len(resumed) != 3 || resumed[0].id != 19 {
		t.Errorf("resuming after 18 sent %d frames, the first id %d; want 19, 20 and eval_finished", len(resumed), resumed[0].id)
	}

	if status, latest := ts.get(t, "/api/evals/latest"); status != http.StatusOK || latest["id"] != id {
		t.Errorf("the latest eval = %d %v, want %s", status, latest["id"], id)
	}
	status, v := ts.get(t, "/api/evals/"+id)
	if status != http.StatusOK || v["done"] != true || v["demo"] != true || v["planned"] != 20.0 || v["finished"] != 20.0 || v["tools"] != 3.0 {
		t.Fatalf("GET /api/evals/%s = %d %v", id, status, v)
	}
	cells := v["cells"].([]any)
	for i, dialect := range []string{"hermes", "pythonic"} {
		c := cells[i].(map[string]any)
		interval := c["interval"].([]any)
		if c["name"] != "dialect="+dialect || c["cases"] != 10.0 || c["passed"] != 8.0 || c["pass_rate"] != 0.8 ||
			interval[0].(float64) > 0.5 || interval[1].(float64) < 0.9 || c["settings"].(map[string]any)["dialect"] != dialect {
			t.Errorf("cell %d = %v", i, c)
		}
	}
	failed := map[string]int{}
	for _, c := range v["cases"].([]any) {
		c := c.(map[string]any)
		if c["pass"] == false {
			failed[c["id"].(string)+" "+c["category"].(string)]++
		}
		if status, run := ts.get(t, "/api/runs/"+c["run_id"].(string)); status != http.StatusOK || run["done"] != true {
			t.Errorf("case %v: its run = %d %v", c["id"], status, run)
		}
	}
	if failed["drop-a-line no_call"] != 2 || failed["capital-of-france wrong_answer"] != 2 || len(failed) != 2 {
		t.Errorf("failed cases = %v", failed)
	}
}

func TestEvalSuitesAreListed(t *testing.T) {
	ts := start(t, setup{})
	_, v := ts.get(t, "/api/evals/suites")
	var names []string
	for _, s := range v["suites"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "calculator,stubs,tools-stress" {
		t.Errorf("bundled suites = %v", names)
	}
}

func TestEvalRequestsRefused(t *testing.T) {
	ts := start(t, setup{})
	for _, c := range []struct {
		body   string
		status int
		says   string
	}{
		{`{}`, 400, `send "suite"`},
		{`{"suite": "nope"}`, 404, `no bundled suite "nope": there are calculator, stubs, tools-stress`},
		{`{"suite": "../go.mod"}`, 404, "no bundled suite"},
		{`{"suite": "stubs", "dialects": ["klingon"]}`, 400, `"dialects" "klingon" is unknown`},
		{`{"suite": "stubs", "distractors": [-1]}`, 400, `"distractors" -1 must be from 0`},
		{`{"suite": "stubs", "parallel": 99}`, 400, `"parallel" 99 must be from 1 to 8`},
		{`{"suite": "stubs", "repeat": 20, "distractors": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}`, 400, "would run 2200 cases"},
		{`{"upload": "name: x\ncases:\n  - id: a\n    request: hi\n    expect: {calls: [{name: send_mail}]}\n"}`, 400, "upload:5"},
		{`{"upload": "name: x\ntools: {mcp: [\"rm -rf /\"]}\ncases:\n  - id: a\n    request: hi\n    expect: {no_call: true}\n"}`, 400, "cannot start MCP servers"},
	} {
		status, v := ts.post(t, "/api/evals", c.body)
		if status != c.status || !strings.Contains(v["error"].(string), c.says) {
			t.Errorf("POST /api/evals %s = %d %v, want %d saying %q", c.body, status, v, c.status, c.says)
		}
	}
}

func TestEvalUploaded(t *testing.T) {
	ts := start(t, setup{})
	upload := "name: mine\ntools: {stubs: [send_mail]}\ncases:\n  - id: mail\n    request: Send an email to john@example.com about the launch\n    expect: {calls: [{name: send_mail}]}\n"
	body, _ := json.Marshal(map[string]any{"upload": upload, "repeat": 2})
	id, events := ts.startEval(t, string(body))
	ts.evalEvents(t, events, 0)
	_, v := ts.get(t, "/api/evals/"+id)
	if c := v["cells"].([]any)[0].(map[string]any); v["suite"] != "mine" || c["name"] != "(suite settings)" || c["passed"] != 2.0 {
		t.Errorf("GET /api/evals/%s = %v", id, v)
	}
}

// One eval at a time; a running one stops on cancel, its cases not run.
// The hub's one place is held by a run paused in step mode, so the eval
// waits for it, running, until cancelled.
func TestEvalOneAtATimeAndCancel(t *testing.T) {
	ts := start(t, setup{config: func(c *server.Config) { c.Hub = runs.NewHub(10, runs.Limits{MaxLive: 1}) }})
	ts.startRun(t, `{"message": "Send an email to john@example.com about the launch", "step": true}`)
	id, events := ts.startEval(t, `{"suite": "stubs"}`)
	status, v := ts.post(t, "/api/evals", `{"suite": "stubs"}`)
	if status != http.StatusConflict || !strings.Contains(v["error"].(string), "an eval is running") {
		t.Errorf("a second eval = %d %v, want 409", status, v)
	}
	if status, v := ts.post(t, "/api/evals/"+id+"/cancel", ``); status != http.StatusAccepted {
		t.Fatalf("cancel = %d %v", status, v)
	}
	frames := ts.evalEvents(t, events, 0)
	last := frames[len(frames)-1]
	if last.typ != "eval_finished" || last.data["cancelled"] != true || last.data["finished"].(float64) >= 10 {
		t.Errorf("the stream ended with %q %v", last.typ, last.data)
	}
	if status, _ := ts.get(t, "/api/evals/e-0000"); status != http.StatusNotFound {
		t.Errorf("an unknown eval = %d, want 404", status)
	}
}

func TestViewerCannotStartEvals(t *testing.T) {
	ts := exposed(t, server.Access{Tokens: tokens})
	for _, c := range []struct{ method, path string }{{"POST", "/api/evals"}, {"GET", "/api/evals/suites"}} {
		resp, body := ts.call(t, c.method, c.path, `{"suite": "stubs"}`, bearer(tokens.Viewer))
		wantJSONError(t, "viewer's "+c.method+" "+c.path, resp, body, http.StatusForbidden, "can only watch")
	}
}
