package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/frontend/server"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

type testServer struct {
	url string
	hub *runs.Hub
}

type setup struct {
	// settings start the engine; the zero value means the demo model,
	// with no pauses.
	settings engine.Settings
	// tools, when set, replace the built-in stub tools.
	tools     []tools.Tool
	keep      int
	heartbeat time.Duration
	// config, when set, changes the server's config before it starts.
	config func(*server.Config)
	// options are the engine's, after tools.
	options []engine.Option
}

// start serves through the engine factory the binary uses.
func start(t *testing.T, s setup) *testServer {
	t.Helper()
	if s.settings.Backend == "" {
		s.settings.Backend = engine.BackendDemo
	}
	var opts []engine.Option
	if s.tools != nil {
		opts = append(opts, engine.WithTools(s.tools...))
	}
	opts = append(opts, s.options...)
	e, err := engine.Start(t.Context(), s.settings, t.Output(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if mcpHub := e.MCP(); mcpHub != nil {
		// The servers' resources and prompts are listed once they are
		// ready, after Start: the routes' tests read them.
		if err := mcpHub.WaitCatalog(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if s.keep == 0 {
		s.keep = 10
	}
	hub := runs.NewHub(s.keep)
	cfg := server.Config{Hub: hub, Engine: e, Heartbeat: s.heartbeat}
	if s.config != nil {
		s.config(&cfg)
	}
	srv := server.New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		e.Close()
	})
	return &testServer{url: "http://" + ln.Addr().String(), hub: cfg.Hub}
}

func (ts *testServer) post(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(ts.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, decode(t, resp.Body)
}

func (ts *testServer) get(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(ts.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, decode(t, resp.Body)
}

func decode(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		t.Fatalf("response is not a JSON object: %v", err)
	}
	return v
}

func (ts *testServer) startRun(t *testing.T, body string) (id, conv string) {
	t.Helper()
	status, v := ts.post(t, "/api/runs", body)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/runs = %d %v", status, v)
	}
	return v["id"].(string), v["conversation_id"].(string)
}

// sseEvent is one frame of an event stream.
type sseEvent struct {
	id    int
	typ   string
	event agent.Event
}

// readEvents reads a run's event stream until it ends.
func readEvents(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	var out []sseEvent
	readSSE(t, resp, func(id int, typ string, data []byte) {
		e := sseEvent{id: id, typ: typ}
		if err := json.Unmarshal(data, &e.event); err != nil {
			t.Fatalf("data is not an event: %v", err)
		}
		out = append(out, e)
	})
	return out
}

// readSSE reads an event stream until it ends, checking its framing, and
// hands frame each frame that has an event type.
func readSSE(t *testing.T, resp *http.Response, frame func(id int, typ string, data []byte)) {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	var id int
	var typ string
	var data []byte
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		line := lines.Text()
		switch {
		case line == "":
			if typ != "" {
				frame(id, typ, data)
			}
			id, typ, data = 0, "", nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id: "):
			id, _ = strconv.Atoi(line[4:])
		case strings.HasPrefix(line, "event: "):
			typ = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = []byte(line[6:])
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
}

func (ts *testServer) events(t *testing.T, id string, lastEventID int) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/api/runs/"+id+"/events", nil)
	if lastEventID > 0 {
		req.Header.Set("Last-Event-ID", strconv.Itoa(lastEventID))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return readEvents(t, resp)
}

func TestRunOverSSE(t *testing.T) {
	ts := start(t, setup{})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about tomorrow's standup"}`)
	events := ts.events(t, id, 0)
	for i, e := range events {
		if e.id != i+1 || e.event.Seq != e.id || string(e.event.Type) != e.typ {
			t.Fatalf("frame %d: id %d, event %q, data seq %d type %q", i, e.id, e.typ, e.event.Seq, e.event.Type)
		}
	}
	last := events[len(events)-1].event
	if last.Type != agent.RunFinished || last.Reason != agent.Answered {
		t.Fatalf("the stream must end with run_finished, got %+v", last)
	}
	status, snap := ts.get(t, "/api/runs/"+id)
	if status != http.StatusOK || snap["done"] != true || !strings.Contains(snap["answer"].(string), "john@example.com") {
		t.Fatalf("GET /api/runs/{id} = %d %v", status, snap)
	}
	if n := len(snap["events"].([]any)); n != len(events) {
		t.Fatalf("snapshot has %d events, the stream %d", n, len(events))
	}
}

func TestResumeWithLastEventID(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	// A first viewer drops out mid-run; it resumes after the last event it saw.
	_, snap := ts.get(t, "/api/runs/"+id)
	seen := len(snap["events"].([]any))
	done := make(chan []sseEvent, 2)
	go func() { done <- ts.events(t, id, seen) }()
	go func() { done <- ts.events(t, id, 0) }() // a second viewer, from the start
	g.Release()
	a, b := <-done, <-done
	resumed, whole := a, b
	if len(a) > len(b) {
		resumed, whole = b, a
	}
	if resumed[0].id != seen+1 || len(resumed) != len(whole)-seen {
		t.Fatalf("resumed after %d: got %d events from id %d; the run has %d", seen, len(resumed), resumed[0].id, len(whole))
	}
	if whole[len(whole)-1].typ != string(agent.RunFinished) || resumed[len(resumed)-1].typ != string(agent.RunFinished) {
		t.Fatal("both viewers must see the run finish")
	}
}

func TestCancel(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	if status, _ := ts.post(t, "/api/runs/"+id+"/cancel", ""); status != http.StatusAccepted {
		t.Fatalf("cancel = %d", status)
	}
	events := ts.events(t, id, 0)
	if last := events[len(events)-1].event; last.Reason != agent.Cancelled {
		t.Fatalf("last event = %+v, want cancelled", last)
	}
}

func TestConversationContinues(t *testing.T) {
	server := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: server.Host()}})
	server.Reply(ollamatest.Reply{Text: "Hello there."}, ollamatest.Reply{Text: "You said hi."})
	first, conv := ts.startRun(t, `{"message": "hi"}`)
	ts.events(t, first, 0)
	second, conv2 := ts.startRun(t, `{"message": "what did I say?", "conversation_id": "`+conv+`"}`)
	ts.events(t, second, 0)
	if conv2 != conv {
		t.Fatalf("the follow-up started conversation %s, want %s", conv2, conv)
	}
	if prompt := server.Requests()[1].Prompt; !strings.Contains(prompt, "Hello there.") {
		t.Fatalf("the follow-up lost the history: %q", prompt)
	}
}

// A follow-up "after_run" continues from the end of that run, in a
// conversation of its own, whether the server still holds the run's
// conversation or not: the model reads the run's request and answer.
func TestFollowUpAfterARun(t *testing.T) {
	server := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: server.Host()}})
	server.Reply(ollamatest.Reply{Text: "Alice is on the team."}, ollamatest.Reply{Text: "Sent to Alice."})
	first, conv := ts.startRun(t, `{"message": "who is alice@co.com?"}`)
	ts.events(t, first, 0)
	second, conv2 := ts.startRun(t, `{"message": "send her the agenda", "after_run": "`+first+`"}`)
	ts.events(t, second, 0)
	if conv2 == conv {
		t.Errorf("the follow-up joined conversation %s: a run's follow-up has a conversation of its own", conv)
	}
	prompt := server.Requests()[1].Prompt
	for _, want := range []string{"who is alice@co.com?", "Alice is on the team.", "send her the agenda"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the follow-up's prompt lacks %q:\n%s", want, prompt)
		}
	}
}

func TestBadRequests(t *testing.T) {
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}})
	busyRun, busy := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	defer g.Release()
	for _, c := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"malformed JSON", "/api/runs", `{"message": `, 400, "not a valid run request"},
		{"unknown field", "/api/runs", `{"message": "hi", "temperature": 2}`, 400, `unknown field "temperature"`},
		{"empty body", "/api/runs", ``, 400, "the body is empty"},
		{"two values", "/api/runs", `{"message": "hi"} {}`, 400, "more than one JSON value"},
		{"empty message", "/api/runs", `{"message": "  "}`, 400, `"message" is empty`},
		{"bad options", "/api/runs", `{"message": "hi", "backend": "gpt", "mode": "fast", "max_rounds": 99, "tool_delay_ms": -1}`, 400,
			`"backend" "gpt" is unknown: use ollama, demo, auto or openai; "mode" "fast" is unknown: use raw or chat; "max_rounds" 99 must be from 1 to 50; "tool_delay_ms" -1 must be from 0 to 60000`},
		{"zero rounds", "/api/runs", `{"message": "hi", "max_rounds": 0}`, 400, `"max_rounds" 0 must be from 1 to 50`},
		{"bad dialect", "/api/runs", `{"message": "", "dialect": "yaml"}`, 400, `"message" is empty: say what the model should do; "dialect" "yaml" is unknown: use hermes`},
		{"demo in chat mode", "/api/runs", `{"message": "hi", "backend": "demo", "mode": "chat"}`, 400, `"mode" "chat" is not available: the demo model has no chat mode`},
		{"too large", "/api/runs", `{"message": "` + strings.Repeat("a", server.DefaultBodyLimit) + `"}`, 413, "too large: send at most 64 KiB"},
		{"unknown conversation", "/api/runs", `{"message": "hi", "conversation_id": "c-nope"}`, 404, "no such conversation"},
		{"busy conversation", "/api/runs", `{"message": "hi", "conversation_id": "` + busy + `"}`, 409, "run in progress"},
		{"after an unknown run", "/api/runs", `{"message": "hi", "after_run": "r-nope"}`, 404, `"after_run": no run "r-nope"`},
		{"after a run in progress", "/api/runs", `{"message": "hi", "after_run": "` + busyRun + `"}`, 409, "is still going"},
		{"after a run and in a conversation", "/api/runs", `{"message": "hi", "after_run": "` + busyRun + `", "conversation_id": "` + busy + `"}`, 400, `not both`},
		{"unknown run", "/api/runs/r-nope/cancel", ``, 404, `no run "r-nope"`},
		{"bad edit", "/api/runs/" + busyRun + "/continue", `{"bogus": 1}`, 400, `the body is not a valid edit: json: unknown field "bogus"`},
		{"bad rerun", "/api/runs/" + busyRun + "/rerun", `{"Round": 1}`, 400, `the body is not a valid rerun request: field "Round" is spelled "round"`},
		{"a run request's field in another case", "/api/runs/" + busyRun + "/rerun", `{"round": 1, "Dialect": "marker"}`, 400, `field "Dialect" is spelled "dialect"`},
		// Values of the wrong type are named by their JSON path and the
		// JSON type they need, never by Go's names.
		{"a string round", "/api/runs/" + busyRun + "/rerun", `{"round": "1"}`, 400, `the body is not a valid rerun request: "round" must be a whole number, not a string`},
		{"a fraction of a round", "/api/runs/" + busyRun + "/rerun", `{"round": 1.5}`, 400, `"round" must be a whole number, not 1.5`},
		{"a huge round", "/api/runs/" + busyRun + "/rerun", `{"round": 99999999999999999999}`, 400, `"round" 99999999999999999999 is out of range`},
		{"a string max_rounds", "/api/runs/" + busyRun + "/rerun", `{"round": 1, "max_rounds": "3"}`, 400, `"max_rounds" "3" must be a whole number`},
		{"messages not a list", "/api/runs/" + busyRun + "/rerun", `{"round": 1, "messages": {}}`, 400, `"messages" must be a list, not an object`},
		{"a message not an object", "/api/runs/" + busyRun + "/rerun", `{"round": 1, "messages": [1]}`, 400, `each item of "messages" must be an object, not a number`},
		{"a role not a string", "/api/runs/" + busyRun + "/rerun", `{"round": 1, "messages": [{"role": 1}]}`, 400, `"messages.role" must be a string, not a number`},
		{"think not a boolean", "/api/runs", `{"message": "hi", "think": "yes"}`, 400, `"think" "yes" must be true, false or null (the model decides)`},
		{"input messages not a list", "/api/runs/" + busyRun + "/continue", `{"input": {"mode": "chat", "messages": "hi"}}`, 400, `the body is not a valid edit: "input.messages" must be a list, not a string`},
		{"result not a string", "/api/runs/" + busyRun + "/continue", `{"result": 3}`, 400, `"result" must be a string, not a number`},
		{"not an object", "/api/runs", `[1]`, 400, `the body is not a valid run request: it must be a JSON object, not a list`},
		{"not JSON", "/api/runs", `{"message": tru}`, 400, `the body is not a valid run request: it is not JSON: invalid character '}' in literal true (expecting 'e'), at byte 16`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, v := ts.post(t, c.path, c.body)
			msg := fmt.Sprint(v["error"])
			if status != c.status || !strings.Contains(msg, c.want) {
				t.Fatalf("got %d %v, want %d and an error saying %q", status, v, c.status, c.want)
			}
			for _, goName := range []string{"Go ", "of type", "rerunRequest", "runRequest", "llm.", "agent."} {
				if strings.Contains(msg, goName) {
					t.Errorf("the error %q names Go's %q", msg, goName)
				}
			}
		})
	}
	for _, path := range []string{"/api/runs/r-nope", "/api/runs/r-nope/events", "/nowhere"} {
		if status, v := ts.get(t, path); status != 404 || v["error"] == nil {
			t.Errorf("GET %s = %d %v, want 404 with an error", path, status, v)
		}
	}
	if status, v := ts.get(t, "/api/runs/"+busyRun+"/events?last_event_id=x"); status != 400 {
		t.Errorf("bad Last-Event-ID: %d %v", status, v)
	}
}

func TestFinishedRunsAreBounded(t *testing.T) {
	ts := start(t, setup{keep: 2})
	var ids []string
	for range 4 {
		id, _ := ts.startRun(t, `{"message": "hello"}`)
		ts.events(t, id, 0)
		ids = append(ids, id)
	}
	// A run is retired just after its stream ends: wait for the last one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _ := ts.get(t, "/api/runs/"+ids[1])
		if status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the runs beyond the bound were never dropped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i, id := range ids {
		status, _ := ts.get(t, "/api/runs/"+id)
		if kept := status == http.StatusOK; kept != (i >= 2) {
			t.Errorf("run %d: status %d; want only the newest 2 kept", i, status)
		}
	}
}

func TestHealthModelsTools(t *testing.T) {
	ts := start(t, setup{})
	if _, v := ts.get(t, "/api/health"); v["ok"] != true || v["demo"] != true {
		t.Errorf("demo health = %v", v)
	}
	if _, v := ts.get(t, "/api/models"); fmt.Sprint(v["models"]) != "[toolscope-demo]" {
		t.Errorf("demo models = %v", v)
	}
	_, v := ts.get(t, "/api/tools")
	list := v["tools"].([]any)
	first := list[0].(map[string]any)
	if len(list) != 3 || first["name"] != "send_mail" || first["source"] != "builtin" || first["parameters"] == nil {
		t.Errorf("tools = %v", v)
	}

	ollamaServer := ollamatest.New(t)
	for _, c := range []struct {
		name, host, model string
		ok                bool
		want              string
	}{
		{"ready", ollamaServer.Host(), "qwen3:4b", true, ""},
		{"model not pulled", ollamaServer.Host(), "qwen9:1b", false, "ollama pull qwen9:1b"},
		{"ollama down", nettest.ClosedAddress(t), "qwen3:4b", false, "'ollama serve'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: c.host, Model: c.model}})
			_, v := ts.get(t, "/api/health")
			if v["ok"] != c.ok || !strings.Contains(fmt.Sprint(v["error"]), c.want) {
				t.Fatalf("health = %v", v)
			}
			if c.ok && v["ollama_version"] != ollamatest.Version {
				t.Fatalf("health does not report Ollama's version: %v", v)
			}
		})
	}
}

func TestPage(t *testing.T) {
	ts := start(t, setup{})
	resp, err := http.Get(ts.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), "send_mail") {
		t.Fatalf("GET / = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, asset := range []string{"/static/app.js", "/static/app.css"} {
		resp, err := http.Get(ts.url + asset)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d", asset, resp.StatusCode)
		}
	}
}

func TestOtherSitesAreRefused(t *testing.T) {
	ts := start(t, setup{})
	u, _ := url.Parse(ts.url)
	for _, c := range []struct {
		name    string
		method  string
		headers map[string]string
		status  int
	}{
		{"curl", "POST", nil, http.StatusCreated},
		{"our own page", "POST", map[string]string{"Origin": ts.url, "Sec-Fetch-Site": "same-origin"}, http.StatusCreated},
		{"another site", "POST", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"another site, old browser", "POST", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a sibling port", "POST", map[string]string{"Origin": "http://" + u.Hostname() + ":1", "Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"DNS rebinding", "GET", map[string]string{"Host": "evil.example:" + u.Port()}, http.StatusForbidden},
		{"localhost by name", "GET", map[string]string{"Host": "localhost:" + u.Port()}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, body := "/api/runs", `{"message": "hello"}`
			if c.method == "GET" {
				path, body = "/api/health", ""
			}
			req, _ := http.NewRequest(c.method, ts.url+path, strings.NewReader(body))
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			if h := c.headers["Host"]; h != "" {
				req.Host = h
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			v := decode(t, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("got %d %v, want %d", resp.StatusCode, v, c.status)
			}
		})
	}
}

func TestRunRequestOverridesSettings(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "Raw."}, ollamatest.Reply{Text: "Chat."})
	id, _ := ts.startRun(t, `{"message": "hi"}`)
	ts.events(t, id, 0)
	id, _ = ts.startRun(t, `{"message": "hi", "mode": "chat", "dialect": "marker", "think": false}`)
	events := ts.events(t, id, 0)
	if run := events[0].event.Run; run == nil || run.Dialect != "marker" {
		t.Errorf("run_started = %+v, want the marker dialect the request chose", events[0].event)
	}
	requests := ollama.Requests()
	if requests[0].Path != "/api/generate" || requests[1].Path != "/api/chat" {
		t.Fatalf("paths %s, %s: want the server's raw mode, then the chat mode the request chose", requests[0].Path, requests[1].Path)
	}
	if think := requests[1].Think; think == nil || think.Bool() {
		t.Errorf("think = %v, want false as the request chose", think)
	}
	// A request may ask the demo model, though the server runs Ollama.
	id, _ = ts.startRun(t, `{"message": "Cancel the standup meeting on 2026-12-01", "backend": "demo"}`)
	if last := ts.events(t, id, 0); len(ollama.Requests()) != 2 || last[len(last)-1].event.Reason != agent.Answered {
		t.Fatalf("the demo run went to Ollama or failed: %d requests, %+v", len(ollama.Requests()), last[len(last)-1].event)
	}
}

func TestPageStartsAtTheServerSettings(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendDemo, MaxRounds: 12, Dialect: streamparser.Marker, ToolDelay: 2500 * time.Millisecond}})
	page := ts.page(t)
	for _, want := range []string{`value="12"`, `<option value="marker" selected>`, `value="2.5"`, `max="50"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestAutoFallbackSaysWhy(t *testing.T) {
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendAuto, OllamaHost: nettest.ClosedAddress(t)}})
	if _, v := ts.get(t, "/api/health"); v["demo"] != true {
		t.Fatalf("health = %v, want the demo model", v)
	}
	if page := ts.page(t); !strings.Contains(page, "Chosen because Ollama was not ready") || !strings.Contains(page, "ollama serve") {
		t.Error("the page does not say why it runs the demo model")
	}
}

func (ts *testServer) page(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(ts.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}
