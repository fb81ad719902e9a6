package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// pullView is a pull's status as GET /api/pull and its events give it.
type pullView struct {
	Model          string `json:"model"`
	State          string `json:"state"`
	Seq            int    `json:"seq"`
	Status         string `json:"status"`
	Text           string `json:"text"`
	Completed      int64  `json:"completed"`
	Total          int64  `json:"total"`
	BytesPerSecond int64  `json:"bytes_per_second"`
	SecondsLeft    int64  `json:"seconds_left"`
	Problem        string `json:"problem"`
	Fix            *struct {
		Do string `json:"do"`
	} `json:"fix"`
	Switched bool   `json:"switched"`
	Events   string `json:"events"`
}

// pullFrame is one frame of GET /api/pull/events.
type pullFrame struct {
	id   int
	typ  string
	pull pullView
}

// lacking serves toolscope on auto, with an Ollama that lacks model and
// pulls it as p says.
func lacking(t *testing.T, model string, p ollamatest.Pull, config func(*server.Config)) (*testServer, *ollamatest.Server) {
	t.Helper()
	ollama := ollamatest.New(t)
	ollama.RemoveModel("qwen3:4b")
	ollama.AddPull(model, p)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendAuto, OllamaHost: ollama.Host(), Model: model}, config: config})
	return ts, ollama
}

// startPull posts /api/pull and decodes its answer.
func (ts *testServer) startPull(t *testing.T, wantStatus int) pullView {
	t.Helper()
	resp, body := ts.call(t, http.MethodPost, "/api/pull", "", nil)
	if resp.StatusCode != wantStatus {
		t.Fatalf("POST /api/pull = %d %s, want %d", resp.StatusCode, body, wantStatus)
	}
	var v pullView
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// followPull reads the pull's events until the stream ends, handing each
// to seen as it comes.
func (ts *testServer) followPull(t *testing.T, seen func(pullFrame)) []pullFrame {
	t.Helper()
	resp, err := http.Get(ts.url + "/api/pull/events")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/pull/events = %d", resp.StatusCode)
	}
	var frames []pullFrame
	readSSE(t, resp, func(id int, typ string, data []byte) {
		f := pullFrame{id: id, typ: typ}
		if err := json.Unmarshal(data, &f.pull); err != nil {
			t.Fatalf("data is not a pull: %v", err)
		}
		if seen != nil {
			seen(f)
		}
		frames = append(frames, f)
	})
	return frames
}

// finished checks that frames count up and end with one pull_finished,
// and returns it.
func finished(t *testing.T, frames []pullFrame) pullView {
	t.Helper()
	for i, f := range frames {
		last := i == len(frames)-1
		if (f.typ == "pull_finished") != last || (f.typ != "progress" && !last) || f.id != f.pull.Seq || i > 0 && f.id <= frames[i-1].id {
			t.Fatalf("frame %d of %d is %s #%d (seq %d): want progress events counting up, then pull_finished", i+1, len(frames), f.typ, f.id, f.pull.Seq)
		}
	}
	if len(frames) == 0 {
		t.Fatal("no events")
	}
	return frames[len(frames)-1].pull
}

// The page's pull: it streams progress, and once the model is pulled the
// server switches from the demo model to it, with no restart.
func TestPullFromThePageSwitchesToTheModel(t *testing.T) {
	release := make(chan struct{})
	ts, _ := lacking(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{4000, 40}, WaitAfter: 3, Release: release}, nil)
	if status, _ := ts.call(t, http.MethodGet, "/api/pull", "", nil); status.StatusCode != http.StatusNoContent {
		t.Fatalf("GET /api/pull before any = %d, want 204", status.StatusCode)
	}
	if page := ts.page(t); !strings.Contains(page, `id="pull-start"`) || !strings.Contains(page, "Pull qwen3:4b") {
		t.Fatal("the operator's page offers no pull of the missing model")
	}

	started := ts.startPull(t, http.StatusCreated)
	if started.Model != "qwen3:4b" || started.State != "pulling" || started.Events != "/api/pull/events" {
		t.Fatalf("POST /api/pull = %+v", started)
	}
	if again := ts.startPull(t, http.StatusOK); again.State != "pulling" {
		t.Errorf("a second POST while pulling = %+v, want the pull under way", again)
	}
	var held pullView
	frames := ts.followPull(t, func(f pullFrame) {
		if held.Completed == 0 && f.pull.Completed > 0 {
			held = f.pull // progress is on screen; now let Ollama go on
			close(release)
		}
	})
	if held.Total != 4000 || held.Completed != 4000/3 || held.Text != "1.3 KB of 4 KB" || !strings.HasPrefix(held.Status, "pulling ") {
		t.Errorf("the progress shown = %+v, want a third of the first layer's 4000 bytes", held)
	}
	end := finished(t, frames)
	if end.State != "pulled" || !end.Switched || end.Completed != 4040 || end.Total != 4040 || end.Problem != "" {
		t.Fatalf("pull_finished = %+v, want pulled, all 4040 bytes, and the model in use", end)
	}

	h := ts.health(t)
	if h.Demo || h.Backend != "ollama" || h.Fallback != nil || !h.OK {
		t.Errorf("health after the pull = %+v, want the model on Ollama", h)
	}
	if page := ts.page(t); strings.Contains(page, `id="demo-banner"`) {
		t.Error("the page still says it runs the demo model")
	}
	resp, body := ts.call(t, http.MethodPost, "/api/pull", "", nil)
	wantJSONError(t, "POST /api/pull once the model is in use", resp, body, http.StatusConflict, "there is nothing to pull: toolscope runs qwen3:4b on ollama")
	// A stream opened after the end says how it ended.
	if again := ts.followPull(t, nil); len(again) != 1 || finished(t, again).State != "pulled" {
		t.Errorf("events after the end = %+v, want pull_finished alone", again)
	}
}

// A failed pull says why and what to do, the demo model stays, and the
// page may try again.
func TestPullFailureSaysWhyAndMayBeRetried(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		ts, ollama := lacking(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{1000}, FailAfter: 4, Error: "max retries exceeded: unexpected EOF"}, nil)
		ts.startPull(t, http.StatusCreated)
		end := finished(t, ts.followPull(t, nil))
		if end.State != "failed" || end.Switched || !strings.Contains(end.Problem, `Ollama could not pull "qwen3:4b": max retries exceeded`) ||
			end.Fix == nil || end.Fix.Do != "try again; Ollama's server log says more" {
			t.Fatalf("pull_finished = %+v, want failed, saying why and what to do", end)
		}
		if h := ts.health(t); !h.Demo || h.Fallback == nil {
			t.Errorf("health after a failed pull = %+v, want the demo model still", h)
		}
		ts.startPull(t, http.StatusCreated) // try again
		finished(t, ts.followPull(t, nil))
		if pulled := ollama.Pulled(); len(pulled) != 2 {
			t.Errorf("Ollama was asked %d times, want twice", len(pulled))
		}
	})
	t.Run("not in the registry", func(t *testing.T) {
		ts, _ := lacking(t, "qwen3:4b", ollamatest.Pull{}, nil)
		// The model the server was started for is another one, which the
		// registry does not have.
		ts2 := start(t, setup{settings: engine.Settings{Backend: engine.BackendAuto, OllamaHost: strings.TrimPrefix(ts.health(t).Ollama.Host, "http://"), Model: "qwen9:1b"}})
		ts2.startPull(t, http.StatusCreated)
		end := finished(t, ts2.followPull(t, nil))
		if end.State != "failed" || end.Problem != `model "qwen9:1b" was not found in Ollama's registry` || end.Fix == nil || !strings.Contains(end.Fix.Do, "ollama.com/search") {
			t.Fatalf("pull_finished = %+v, want the registry's answer", end)
		}
	})
}

// Cancel ends the pull and its request to Ollama; the demo model stays.
func TestPullCancel(t *testing.T) {
	ended := make(chan struct{})
	ts, _ := lacking(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{1000}, WaitAfter: 3, Ended: ended}, nil)
	ts.startPull(t, http.StatusCreated)
	cancelled := false
	end := finished(t, ts.followPull(t, func(f pullFrame) {
		if !cancelled && f.pull.Completed > 0 {
			cancelled = true
			if resp, body := ts.call(t, http.MethodPost, "/api/pull/cancel", "", nil); resp.StatusCode != http.StatusAccepted {
				t.Errorf("POST /api/pull/cancel = %d %s, want 202", resp.StatusCode, body)
			}
		}
	}))
	if end.State != "cancelled" || end.Switched {
		t.Fatalf("pull_finished = %+v, want cancelled", end)
	}
	<-ended // Ollama saw its client go
	if status, _ := ts.get(t, "/api/pull"); status != http.StatusOK {
		t.Errorf("GET /api/pull = %d, want the cancelled pull", status)
	}
	resp, body := ts.call(t, http.MethodPost, "/api/pull/cancel", "", nil)
	wantJSONError(t, "cancel with no pull under way", resp, body, http.StatusConflict, "no pull is under way")
	if h := ts.health(t); !h.Demo {
		t.Errorf("health after a cancelled pull = %+v, want the demo model still", h)
	}
}

// Only the operator pulls: a viewer of a shared room may not start,
// watch or stop one, nor see the button, and a request with no token is
// refused.
func TestPullIsTheOperators(t *testing.T) {
	ts, ollama := lacking(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{1000}}, func(c *server.Config) {
		c.Access = server.Access{Tokens: tokens}
	})
	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/api/pull"}, {http.MethodGet, "/api/pull"}, {http.MethodGet, "/api/pull/events"}, {http.MethodPost, "/api/pull/cancel"},
	} {
		resp, body := ts.call(t, r.method, r.path, "", bearer(tokens.Viewer))
		wantJSONError(t, "a viewer's "+r.method+" "+r.path, resp, body, http.StatusForbidden, "the viewer link can only watch runs")
		resp, body = ts.call(t, r.method, r.path, "", nil)
		wantJSONError(t, "a stranger's "+r.method+" "+r.path, resp, body, http.StatusUnauthorized, "a valid token is needed")
	}
	if _, page := ts.call(t, http.MethodGet, "/", "", bearer(tokens.Viewer)); strings.Contains(page, "pull-start") || !strings.Contains(page, "is not pulled") {
		t.Error("the viewer's page offers a pull, or does not say why the demo model answers")
	}
	if _, page := ts.call(t, http.MethodGet, "/", "", bearer(tokens.Operator)); !strings.Contains(page, "pull-start") {
		t.Error("the operator's page offers no pull")
	}
	if pulled := ollama.Pulled(); len(pulled) != 0 {
		t.Fatalf("Ollama was asked to pull %q by someone other than the operator", pulled)
	}
	if resp, body := ts.call(t, http.MethodPost, "/api/pull", "", bearer(tokens.Operator)); resp.StatusCode != http.StatusCreated {
		t.Errorf("the operator's POST /api/pull = %d %s, want 201", resp.StatusCode, body)
	}
}

// A pull takes no fields: the server pulls the model it was started for,
// and only after falling back from it.
func TestPullRefusesWhatItCannotDo(t *testing.T) {
	ts, _ := lacking(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{1000}}, nil)
	resp, body := ts.call(t, http.MethodPost, "/api/pull", `{"model": "llama3.2"}`, nil)
	wantJSONError(t, "a pull naming a model", resp, body, http.StatusBadRequest, "it takes no fields")
	demo := start(t, setup{})
	resp, body = demo.call(t, http.MethodPost, "/api/pull", "", nil)
	wantJSONError(t, "a pull on the demo model chosen", resp, body, http.StatusConflict, "there is nothing to pull: toolscope runs toolscope-demo on demo")
	resp, body = demo.call(t, http.MethodGet, "/api/pull/events", "", nil)
	wantJSONError(t, "events before any pull", resp, body, http.StatusNotFound, "no pull has started")
}
