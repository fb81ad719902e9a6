package mcpbridge

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"sync"
)

// maxQueued bounds the bytes a stream holds for a client that does not
// read them (or, for the standalone stream, has not opened it yet); past
// it the oldest messages are dropped.
const maxQueued = 16 << 20

// stream is a queue of JSON-RPC messages for one HTTP response to carry
// as server-sent events: the response to a POST that carried requests,
// which ends once they are answered, or the standalone stream of a
// session, which a GET (or SSE's one GET) carries and which holds its
// messages while no request carries it. Only the handler of the request
// that carries it writes to the response.
type stream struct {
	wake chan struct{} // a message was queued, or the stream is done

	mu       sync.Mutex
	queue    [][]byte
	bytes    int
	owed     int  // answers still to come; a POST's stream ends once none is and its queue is empty
	standing bool // the standalone stream: it ends only with its request
	carried  bool // a request is carrying it
	gone     bool // its request has gone: what comes is dropped
	dropping bool // it has dropped messages for maxQueued
}

func newStream(owed int) *stream {
	return &stream{wake: make(chan struct{}, 1), owed: owed}
}

func standingStream() *stream {
	st := newStream(0)
	st.standing = true
	return st
}

// push queues a message; answers says whether it answers one of the
// requests the stream owes answers to. It drops the message if the
// stream's request has gone, and the oldest ones past maxQueued; it
// reports the first time it does the latter.
func (st *stream) push(data []byte, answers bool) (startedDropping bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if answers {
		st.owed--
	}
	if st.gone {
		return false
	}
	st.queue = append(st.queue, data)
	st.bytes += len(data)
	for st.bytes > maxQueued && len(st.queue) > 1 {
		st.bytes -= len(st.queue[0])
		st.queue = st.queue[1:]
		if !st.dropping {
			st.dropping, startedDropping = true, true
		}
	}
	st.signal()
	return startedDropping
}

// answerWillNotCome counts an answer owed that will not come (a request
// the client cancelled).
func (st *stream) answerWillNotCome() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.owed--
	st.signal()
}

func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// carry writes the stream's messages to w as server-sent events as they
// come (see messages).
func (st *stream) carry(ctx context.Context, stop <-chan struct{}, w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	for data := range st.messages(ctx, stop) {
		if writeEvent(w, rc, "message", data) != nil {
			st.requeue(data) // for the next GET, if the stream is the standalone one
			return
		}
	}
}

// messages yields the stream's messages as they come, until the stream
// is done, ctx ends (the client went away) or stop is closed (the session
// ended). Once stop is closed it still yields what the stream holds: the
// errors a session queues as it ends may come after the last look at the
// queue, and with the wake-up that stop races.
func (st *stream) messages(ctx context.Context, stop <-chan struct{}) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		stopping := false
		for {
			data, done := st.next()
			switch {
			case done:
				return
			case data != nil:
				if !yield(data) {
					return
				}
				continue
			case stopping:
				return
			}
			select {
			case <-st.wake:
			case <-ctx.Done():
				return
			case <-stop:
				stopping = true
			}
		}
	}
}

// next takes the next message queued, or reports the stream done.
func (st *stream) next() (data []byte, done bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.queue) == 0 {
		return nil, !st.standing && st.owed <= 0
	}
	data = st.queue[0]
	st.queue = st.queue[1:]
	st.bytes -= len(data)
	return data, false
}

func (st *stream) requeue(data []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.queue = append([][]byte{data}, st.queue...)
	st.bytes += len(data)
}

// attach claims a standing stream for a request to carry; false if
// another carries it already.
func (st *stream) attach() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.carried {
		return false
	}
	st.carried = true
	return true
}

// detach lets a standing stream wait for the next request to carry it,
// keeping what it holds; a POST's stream is gone for good, and drops what
// comes.
func (st *stream) detach() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.carried = false
	if !st.standing {
		st.gone = true
		st.queue, st.bytes = nil, 0
	}
}

// writeEvent writes one server-sent event and flushes it.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, name string, data []byte) error {
	var b bytes.Buffer
	b.WriteString("event: " + name + "\n")
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	return rc.Flush()
}
