package server

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/runs"
)

// The one writer frames both APIs' streams: the page's events with id and
// type, OpenAI's chunks as bare data lines.
func TestSSEWriterFrames(t *testing.T) {
	var got strings.Builder
	renewed := 0
	out := newSSEWriter(bufio.NewWriter(&got), func() { renewed++ }, func() { t.Error("gone called on a working stream") })

	out.event(runs.Encoded{Seq: 12, Type: agent.RunStarted, JSON: []byte(`{"seq":12}`)})
	out.data([]byte(`{"object":"chat.completion.chunk"}`))
	out.data([]byte("[DONE]"))

	want := "id: 12\nevent: run_started\ndata: {\"seq\":12}\n\n" +
		"data: {\"object\":\"chat.completion.chunk\"}\n\n" +
		"data: [DONE]\n\n"
	if got.String() != want {
		t.Errorf("the stream is\n%q\nwant\n%q", got.String(), want)
	}
	if renewed != 3 {
		t.Errorf("the deadline was renewed %d times for 3 frames", renewed)
	}
}

// A client that went away is told once, and nothing more is written to
// it: the writes after would only fail again, each after its deadline.
func TestSSEWriterStopsAtTheFirstFailedWrite(t *testing.T) {
	conn := &failingConn{}
	renewed, gone := 0, 0
	out := newSSEWriter(bufio.NewWriter(conn), func() { renewed++ }, func() { gone++ })

	out.data([]byte("one"))
	out.data([]byte("two"))
	out.event(runs.Encoded{Seq: 1, Type: agent.RunFinished, JSON: []byte(`{}`)})

	if gone != 1 {
		t.Errorf("gone was called %d times, want once", gone)
	}
	if renewed != 1 || conn.writes != 1 {
		t.Errorf("after the first failed write, %d frames were begun and %d written; want 1 and 1", renewed, conn.writes)
	}
}

type failingConn struct{ writes int }

func (c *failingConn) Write([]byte) (int, error) {
	c.writes++
	return 0, errors.New("connection reset by peer")
}
