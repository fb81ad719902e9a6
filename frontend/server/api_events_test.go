package server_test

import (
	"bufio"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/toolstest"
)

// heldRun starts a run whose tool call blocks until the returned gate is
// released, on a server whose idle streams beat every 10ms.
func heldRun(t *testing.T) (*testServer, *runs.Run, *toolstest.Gate) {
	t.Helper()
	g := toolstest.NewGate("send_mail")
	ts := start(t, setup{tools: []tools.Tool{g.Tool()}, heartbeat: 10 * time.Millisecond})
	id, _ := ts.startRun(t, `{"message": "Send an email to john@example.com about the launch"}`)
	<-g.Started
	run, err := ts.hub.Get(id)
	if err != nil {
		t.Fatalf("the hub does not know run %s: %v", id, err)
	}
	return ts, run, g
}

// openStream opens a run's event stream after seq, with the query
// parameter that clients unable to set Last-Event-ID use.
func openStream(t *testing.T, ts *testServer, id string, after int) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := http.Get(ts.url + "/api/runs/" + id + "/events?last_event_id=" + strconv.Itoa(after))
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	return resp, bufio.NewReader(resp.Body)
}

// waitForViewers waits until run has want viewers. A client that leaves is
// noticed only when a write to it fails, at the next heartbeat at the
// latest, which no test can observe: so this polls, and the deadline only
// bounds a failure.
func waitForViewers(t *testing.T, run *runs.Run, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n := run.Viewers(); n != want; n = run.Viewers() {
		if time.Now().After(deadline) {
			t.Fatalf("%d viewers still follow the run; want %d", n, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSSEViewersEndWithTheirClients(t *testing.T) {
	ts, run, g := heldRun(t)
	var gone []*http.Response
	for range 3 {
		resp, body := openStream(t, ts, run.ID, 0)
		// Once the first frame has arrived, its viewer is counted.
		if line, err := body.ReadString('\n'); line != "id: 1\n" {
			t.Fatalf("the stream began with %q, %v", line, err)
		}
		gone = append(gone, resp)
	}
	if n := run.Viewers(); n != 3 {
		t.Fatalf("Viewers() = %d with three streams open", n)
	}
	// The tabs close while the run is idle: only the heartbeat can notice.
	for _, resp := range gone {
		resp.Body.Close()
	}
	waitForViewers(t, run, 0)

	// The run goes on for a viewer that reads it to the end.
	g.Release()
	events := ts.events(t, run.ID, 0)
	if last := events[len(events)-1].event; last.Reason != agent.Answered {
		t.Fatalf("closing tabs stopped the run: %+v", last)
	}
	// The stream's body ends only after its iteration has.
	if n := run.Viewers(); n != 0 {
		t.Fatalf("Viewers() = %d after the only open stream ended", n)
	}
}

func TestSSEHeartbeatOnIdleStream(t *testing.T) {
	ts, run, g := heldRun(t)
	defer g.Release()
	seen := len(run.Snapshot().Events)
	resp, body := openStream(t, ts, run.ID, seen)
	defer resp.Body.Close()
	// Resuming after every recorded event, the stream has nothing but
	// heartbeats to send until the tool call ends.
	for range 2 {
		if line, err := body.ReadString('\n'); err != nil || line != ": heartbeat\n" {
			t.Fatalf("an idle stream sent %q, %v; want a heartbeat comment", line, err)
		}
		if line, _ := body.ReadString('\n'); line != "\n" {
			t.Fatalf("a heartbeat is followed by %q, want a blank line", line)
		}
	}
}
