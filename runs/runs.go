// Package runs keeps runs alive on the server, apart from the requests that
// started or watch them.
//
// # Starting a run
//
// A [Hub] holds the runs of a program. [Hub.Start] begins one, as a
// [Spec] says (the message, the [agent.Agent] to answer it, the
// conversation it continues), and returns the [Run] at once: the run goes
// on in the background until it finishes or [Run.Cancel] stops it, whoever
// watches it. A run that names the ConversationID of an earlier one
// continues its conversation; a conversation runs one request at a time
// ([ErrBusy]). A run in step mode ([Spec.Step]) waits at each pause for
// [Run.Continue].
//
// # Following a run
//
// A run records every event of its agent.Run. [Run.Events] is how anything
// watches one: a viewer that connects late, or reconnects after the event
// it last saw, replays what it missed and then follows the live tail, and
// the iteration ends by itself once the run has finished. Any number of
// viewers can follow one run; a viewer that leaves (breaks out of its loop,
// or cancels its context) stops nothing, and [Run.Viewers] counts those
// still watching. [Run.Encoded] yields the same events as the JSON they
// are kept in, for a server to send without encoding them again. The
// package Example follows a run from its start; the Example of
// [Run.Events] resumes after the last event seen, as a browser does with
// its Last-Event-ID.
//
// # Guarantees
//
// Events come in order and without gaps: each event's Seq is the one
// before it plus one, from 1, so a viewer that resumes after Seq n misses
// none and sees none twice. A recorded event never changes. A Hub is safe
// for concurrent use, and its [Limits] bound what it holds, so that no
// request, however large, and no crowd of them exhausts the server's
// memory: the runs in progress ([ErrTooManyRuns]), each run's events and
// bytes (a run that outgrows them is stopped with a [LimitError]), the
// finished runs kept, and how long a pause waits.
//
// # Observers
//
// [Hub.Observe] adds an [Observer], which each run shows its events to as
// the agent emits them, on the run's goroutine, and whose context the run
// runs under: a tracer or a meter of runs (package telemetry). A run keeps
// the W3C trace context of the request that started it as text
// ([Spec.Trace], [TraceContext]) for a tracer to carry on, and
// [Hub.Viewers] counts the viewers following the Hub's runs.
//
// # History
//
// A Hub keeps a number of finished runs in memory ([NewHub]), dropping the
// oldest first. [Hub.SetArchive] gives it an [Archive] that records
// them for good; then [Hub.Get] and [Hub.Find] look there for the runs the
// Hub no longer holds, and [Restore] brings one back for viewers to replay.
package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolscope/toolscope/agent"
)

// Errors of Hub.Start.
var (
	ErrUnknownConversation = errors.New("no such conversation: it may have expired; start a new one")
	ErrBusy                = errors.New("the conversation has a run in progress: wait for it or cancel it")
	ErrClosed              = errors.New("the server is shutting down")
	// ErrNoRun is Get's error for a run neither the Hub nor its Archive
	// holds, and an Archive's Load's for one it does not hold.
	ErrNoRun = errors.New("no such run")
	// ErrTooManyRuns: Limits.MaxLive runs are in progress. Start returns
	// it as a *TooManyRunsError, which says how many of them are paused.
	ErrTooManyRuns = errors.New("too many runs are in progress: wait for one to finish and try again")
)

// TooManyRunsError is Start's error when Limits.MaxLive runs are in
// progress; errors.Is(err, ErrTooManyRuns) holds for it. A run paused in
// step mode keeps its place until Continue or Cancel, or until its pause
// times out (Limits.PauseTimeout): Paused says how many of the runs are
// waiting so.
type TooManyRunsError struct {
	Live   int // the runs in progress: the most allowed
	Paused int // of them, those paused in step mode
	// PauseTimeout is how long a pause waits at most.
	PauseTimeout time.Duration
}

func (e *TooManyRunsError) Error() string {
	if e.Paused == 0 {
		return ErrTooManyRuns.Error()
	}
	return fmt.Sprintf("too many runs are in progress (%d): %d of them are paused in step mode, and wait until they are continued or cancelled, %s at most", e.Live, e.Paused, ShortDuration(e.PauseTimeout))
}

// Is reports whether target is ErrTooManyRuns.
func (e *TooManyRunsError) Is(target error) bool { return target == ErrTooManyRuns }

// Hub starts runs and keeps them, and their conversations, until they are
// evicted. It is safe for concurrent use.
type Hub struct {
	keep   int
	limits Limits
	ctx    context.Context // ends when the Hub closes, cancelling every run
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	runs      map[string]*Run
	order     []string // the kept runs' IDs, oldest first
	finished  []string // run IDs, oldest first, for eviction
	keptBytes int      // the size of the finished runs kept
	live      int      // runs in progress
	onIdle    []func()
	convs     map[string]*conversation
	archive   Archive // nil when runs do not outlive the Hub
	noArchive string  // why, when the caller said
	observers []Observer
}

type conversation struct {
	agent.Conversation
	busy bool
	runs int // runs of this conversation still kept
}

// NewHub returns a Hub that keeps at most keep finished runs, dropping the
// oldest first, within the limits (zero fields take the defaults). Runs
// in progress are always kept.
func NewHub(keep int, limits ...Limits) *Hub {
	var l Limits
	if len(limits) > 0 {
		l = limits[0]
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{keep: max(keep, 1), limits: l.withDefaults(), ctx: ctx, cancel: cancel,
		runs: map[string]*Run{}, convs: map[string]*conversation{}}
}

// Spec says what to run.
type Spec struct {
	Message string
	// ConversationID continues a conversation; empty starts a new one.
	ConversationID string
	Agent          *agent.Agent
	// Build, when Agent is nil, builds the run's agent once the run is
	// admitted (within Limits.MaxLive, its conversation free): work only
	// a run that may start should cost, such as compiling an API
	// client's tool schemas, is not done for one refused. Its error is
	// Start's, and the run never was.
	Build func() (*agent.Agent, error)
	// History, when set, is a whole conversation that the caller keeps, as
	// an OpenAI API client does: the run answers it as it stands (see
	// agent.Agent.Answer) in a conversation of its own, and Message only
	// says what was asked. ConversationID must then be empty.
	History *agent.Conversation
	// Source says where the run comes from: SourcePage when empty.
	Source Source
	// UserAgent is the client's User-Agent header, for people to tell
	// apart the apps that use the server.
	UserAgent string
	// Step starts the run in step mode: it pauses at each agent.Point
	// until [Run.Continue] or [Run.Cancel].
	Step bool
	// ForkedFrom, when set, records that the run reruns another from one
	// of its rounds; History then holds that run's conversation as it
	// stood before the round.
	ForkedFrom *Fork
	// Trace is the trace context of the request that started the run,
	// for an Observer that traces runs to carry on (see [Run.Trace]).
	Trace TraceContext
}

// TraceContext is a W3C trace context as a request's headers carried it:
// traceparent, tracestate and baggage, each "" when absent. A run keeps
// it as text, so that this package knows nothing of tracing: a tracer
// among the Hub's Observers makes the run's spans children of the
// caller's span.
type TraceContext struct {
	Parent, State, Baggage string
}

// Fork is a rerun's lineage: the run it was forked from, and the round of
// that run it starts again from.
type Fork struct {
	Run   string `json:"run"`
	Round int    `json:"round"`
}

// Source is where a run comes from.
type Source string

// Sources of a run.
const (
	SourcePage Source = "page" // the playground or its run API
	SourceAPI  Source = "api"  // the HTTP APIs: /v1 and /api/query
	SourceEval Source = "eval" // a case of an eval (toolscope eval)
)

// Start begins a run in the background and returns it at once. The run
// lives until it finishes or is cancelled, whoever watches it.
func (h *Hub) Start(spec Spec) (*Run, error) {
	convID, conv, err := h.admit(spec)
	if err != nil {
		return nil, err
	}
	if spec.Agent == nil {
		spec.Agent, err = spec.Build()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil && h.ctx.Err() != nil { // shut down while the agent was built
		err = ErrClosed
	}
	if err != nil {
		h.withdraw(convID, conv)
		return nil, err
	}

	ctx, cancel := context.WithCancel(h.ctx)
	if spec.Source == "" {
		spec.Source = SourcePage
	}
	r := &Run{ID: newID("r"), ConversationID: convID, Message: spec.Message, Source: spec.Source,
		UserAgent: spec.UserAgent, ForkedFrom: spec.ForkedFrom, Started: time.Now(), cancel: cancel, changed: make(chan struct{}), limits: h.limits,
		OpensConversation: spec.ConversationID == "" && spec.History == nil, Trace: spec.Trace}
	h.runs[r.ID] = r
	h.order = append(h.order, r.ID)
	rec := h.archive
	if rec != nil {
		rec.Started(r)
	}
	a := spec.Agent
	if spec.Step {
		a = a.Stepping(r)
	}
	// A server's questions while its tool runs are asked on the page.
	a = a.Answering(r)
	run := a.Run
	if spec.History != nil {
		run = a.Answer
	}
	observers := h.observers
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		ctx, observe := observeRun(ctx, r, observers)
		res := run(ctx, &conv.Conversation, spec.Message, func(e agent.Event) {
			if e.Type == agent.RunFinished {
				// A viewer may send a follow-up as soon as it sees the run
				// finish: the conversation must be free by then.
				h.release(conv)
			}
			observe(e)
			r.append(e)
		})
		r.finish(res)
		if rec != nil {
			rec.Finished(r)
		}
		h.retire(r)
	}()
	return r, nil
}

// admit holds a place for the run spec asks for: it counts as in
// progress, and its conversation, new or continued, as busy.
func (h *Hub) admit(spec Spec) (string, *conversation, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil {
		return "", nil, ErrClosed
	}
	if h.live >= h.limits.MaxLive {
		return "", nil, &TooManyRunsError{Live: h.live, Paused: h.paused(), PauseTimeout: h.limits.PauseTimeout}
	}
	convID := spec.ConversationID
	conv := h.convs[convID]
	switch {
	case convID == "":
		convID = newID("c")
		conv = &conversation{}
		if spec.History != nil {
			conv.Conversation = *spec.History
		}
		h.convs[convID] = conv
	case conv == nil:
		return "", nil, ErrUnknownConversation
	case conv.busy:
		return "", nil, ErrBusy
	}
	conv.busy = true
	conv.runs++
	h.live++
	return convID, conv, nil
}

// withdraw gives back the place admit held for a run that did not
// start; h.mu is held.
func (h *Hub) withdraw(convID string, conv *conversation) {
	h.live--
	conv.busy = false
	if conv.runs--; conv.runs == 0 {
		delete(h.convs, convID)
	}
}

// paused counts the runs in progress that wait in step mode; h.mu is
// held. The order h.mu, then a Run's mu, is retire's too.
func (h *Hub) paused() int {
	n := 0
	for _, id := range h.order {
		r := h.runs[id]
		r.mu.Lock()
		if r.status() == "paused" {
			n++
		}
		r.mu.Unlock()
	}
	return n
}

func (h *Hub) release(conv *conversation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	conv.busy = false
}

// retire evicts the oldest finished runs, past the count or the bytes to
// keep.
func (h *Hub) retire(r *Run) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.live--; h.live == 0 {
		for _, fn := range h.onIdle {
			go fn()
		}
	}
	h.finished = append(h.finished, r.ID)
	h.keptBytes += r.size()
	for len(h.finished) > h.keep || h.keptBytes > h.limits.KeepBytes && len(h.finished) > 1 {
		old := h.runs[h.finished[0]]
		h.finished = h.finished[1:]
		h.keptBytes -= old.size()
		delete(h.runs, old.ID)
		h.order = slices.DeleteFunc(h.order, func(id string) bool { return id == old.ID })
		c := h.convs[old.ConversationID]
		if c.runs--; c.runs == 0 && !c.busy {
			delete(h.convs, old.ConversationID)
		}
	}
}

// Get returns a kept run, or one the Hub's Archive kept after the Hub
// dropped it. Its error is ErrNoRun when neither holds the run, else the
// Archive's: one it cannot read, being damaged, is not one that never
// existed.
func (h *Hub) Get(id string) (*Run, error) {
	h.mu.Lock()
	r, ok := h.runs[id]
	archive := h.archive
	h.mu.Unlock()
	switch {
	case ok:
		return r, nil
	case archive == nil:
		return nil, ErrNoRun
	}
	return archive.Load(id)
}

// Latest returns the newest run kept in memory from one of sources, or
// from any when none are given: the one a viewer follows. False before
// the first such run.
func (h *Hub) Latest(sources ...Source) (*Run, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.order) - 1; i >= 0; i-- {
		if r := h.runs[h.order[i]]; len(sources) == 0 || slices.Contains(sources, r.Source) {
			return r, true
		}
	}
	return nil, false
}

// List describes the kept runs, newest first.
func (h *Hub) List() []Summary {
	h.mu.Lock()
	kept := make([]*Run, len(h.order))
	for i, id := range h.order {
		kept[len(kept)-1-i] = h.runs[id]
	}
	h.mu.Unlock()
	list := make([]Summary, len(kept))
	for i, r := range kept {
		list[i] = r.Summary()
	}
	return list
}

// OnIdle registers fn to be called, on a goroutine of its own, each time
// the last run in progress ends.
func (h *Hub) OnIdle(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onIdle = append(h.onIdle, fn)
}

// Live returns the number of runs in progress.
func (h *Hub) Live() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live
}

// Viewers returns the number of viewers following the kept runs: the
// iterations of [Run.Encoded] in progress, a server's event streams.
func (h *Hub) Viewers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.runs {
		n += r.Viewers()
	}
	return n
}

// Close cancels every run and waits for them to end.
func (h *Hub) Close() { _ = h.Shutdown(context.Background()) }

// Shutdown cancels every run and waits for them to end, or for ctx to end:
// a tool that ignores cancellation must not hold a program's exit. Its
// error then says how many runs were still going.
func (h *Hub) Shutdown(ctx context.Context) error {
	// Under the lock, so that no Start is between its check and wg.Add.
	h.mu.Lock()
	h.cancel()
	h.mu.Unlock()
	ended := make(chan struct{})
	go func() {
		h.wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d runs did not end when cancelled: %w", h.Live(), ctx.Err())
	}
}

// Run is one request being answered, or answered.
type Run struct {
	ID             string
	ConversationID string
	Message        string
	Source         Source
	UserAgent      string
	ForkedFrom     *Fork // nil unless the run reruns another
	// OpensConversation says that nothing came before Message: the run
	// began a conversation of its own, with no history. False for a run
	// an Archive gave back, which does not record it.
	OpensConversation bool
	Started           time.Time
	// Trace is the trace context of the request that started the run
	// (see [Spec.Trace]); the zero TraceContext when none.
	Trace  TraceContext
	cancel context.CancelFunc
	// stored: the run was loaded from an Archive (see [Restore]), not kept
	// in memory since it ran.
	stored bool
	// setup is what run_started said the run runs on, for lists.
	setup Setup

	limits Limits

	mu      sync.Mutex
	events  []Encoded
	bytes   int   // the size of the events' JSON
	stopped error // why the run was stopped: a *LimitError or a *PauseTimeoutError
	// untold is the Error event that says why a run whose pause timed out
	// was stopped, recorded just before run_finished: the events the run
	// sends as it winds down are kept till then, since they hold its
	// conversation's last turn, which a follow-up rebuilds from them.
	untold  *agent.Event
	changed chan struct{} // closed and replaced when events are added
	done    bool
	result  agent.Result
	pause   pause  // what the run waits on, in step mode
	asking  asking // the server's question the run waits on a person's answer to
	ended   time.Time

	viewers atomic.Int64 // iterations of Events in progress
}

// append records e, unless the run, being stopped, drops it.
func (r *Run) append(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil && r.untold == nil && e.Type != agent.RunFinished {
		return // the run outgrew its limits; only its end is still told
	}
	if e.Type == agent.RunFinished && r.untold != nil {
		told := *r.untold
		told.Seq, told.AtMS, r.untold = len(r.events)+1, e.AtMS, nil
		r.add(encode(told))
	}
	e.Seq = len(r.events) + 1
	e = r.pause.record(e, r.limits.PauseTimeout)
	e = r.asking.record(e, r.limits.PauseTimeout)
	if e.Type == agent.RunStarted {
		r.setup = SetupOf(e)
	}
	enc := encode(e)
	// Room is left for the error and run_finished.
	if e.Type != agent.RunFinished &&
		(len(r.events)+3 > r.limits.MaxRunEvents || r.bytes+len(enc.JSON) > r.limits.MaxRunBytes) {
		r.stop(r.limits.exceeded(len(r.events), r.bytes), e)
		return
	}
	r.add(enc)
}

// add records enc and wakes the viewers; r.mu is held.
func (r *Run) add(enc Encoded) {
	r.events = append(r.events, enc)
	r.bytes += len(enc.JSON)
	close(r.changed)
	r.changed = make(chan struct{})
}

// stop cancels the run for why, which an Error event says in place of
// the event at (when and in which round the run was stopped); only
// run_finished follows it. r.mu is held.
func (r *Run) stop(why error, at agent.Event) {
	r.stopped, r.untold = why, nil
	r.add(encode(agent.Event{Seq: len(r.events) + 1, Type: agent.Error, AtMS: at.AtMS, Round: at.Round, Error: why.Error()}))
	r.cancel()
}

func (r *Run) finish(res agent.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		res.Err = r.stopped
	}
	// Kept for a while yet: without the room append left to grow into.
	r.events = slices.Clone(r.events)
	r.done, r.result, r.ended = true, res, time.Now()
	close(r.changed)
	r.changed = make(chan struct{})
}

// size returns the size of the run's events, as the limits count it.
func (r *Run) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// Cancel stops the run: its model request and any running tool. It
// reports whether the run was still in progress; cancelling a finished
// run does nothing.
func (r *Run) Cancel() bool {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	r.cancel()
	return !done
}

// Recorded returns the number of events recorded so far, which is also
// the sequence number of the last one.
func (r *Run) Recorded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// Events is [Run.Encoded] with each event decoded.
func (r *Run) Events(ctx context.Context, after int) iter.Seq[agent.Event] {
	return func(yield func(agent.Event) bool) {
		for enc := range r.Encoded(ctx, after) {
			if !yield(enc.Event()) {
				return
			}
		}
	}
}

// Encoded yields the run's events after sequence number after (0 for all):
// first those already recorded, then the live ones as they arrive. The
// iteration ends when the run has finished and its last event has been
// yielded, when ctx ends, or when the loop breaks; none of these affects
// the run. A resuming viewer passes the last sequence number it saw.
//
// Each iteration counts as a viewer (see [Run.Viewers]) from its first
// step until it ends, however it ends.
func (r *Run) Encoded(ctx context.Context, after int) iter.Seq[Encoded] {
	return func(yield func(Encoded) bool) {
		r.viewers.Add(1)
		defer r.viewers.Add(-1)
		next := max(after, 0)
		for {
			events, changed, done := r.since(next)
			for _, e := range events {
				if ctx.Err() != nil || !yield(e) {
					return
				}
			}
			next += len(events)
			if len(events) > 0 {
				continue // more may have arrived while the loop body ran
			}
			if done {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}
}

// Viewers returns the number of iterations of [Run.Encoded] (and so of
// [Run.Events]) in progress.
func (r *Run) Viewers() int { return int(r.viewers.Load()) }

// since returns the events after sequence number seq, a channel that is
// closed when more arrive, and whether the run has finished (then no more
// will).
func (r *Run) since(seq int) (events []Encoded, changed <-chan struct{}, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Events are numbered 1, 2, … in order, so seq is also an index.
	if seq < len(r.events) {
		events = r.events[seq:len(r.events):len(r.events)]
	}
	return events, r.changed, r.done
}

// Snapshot is a run as JSON.
type Snapshot struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	Message        string    `json:"message"`
	Started        time.Time `json:"started_at"`
	// Stored is as in [Summary].
	Stored     bool  `json:"stored,omitempty"`
	ForkedFrom *Fork `json:"forked_from,omitempty"`
	Done       bool  `json:"done"`
	// Status is "running", "paused" (in step mode, waiting on Paused), or
	// how the run ended: an agent.Reason.
	Status string        `json:"status"`
	Paused *agent.Pause  `json:"paused,omitempty"`
	Reason agent.Reason  `json:"reason,omitempty"` // how it ended, once done
	Answer string        `json:"answer,omitempty"`
	Rounds int           `json:"rounds,omitempty"`
	Error  string        `json:"error,omitempty"`
	Events []agent.Event `json:"events"`
}

// Snapshot returns the run so far.
func (r *Run) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Snapshot{ID: r.ID, ConversationID: r.ConversationID, Message: r.Message, Started: r.Started, Stored: r.stored,
		ForkedFrom: r.ForkedFrom, Done: r.done, Events: make([]agent.Event, len(r.events))}
	for i, enc := range r.events {
		s.Events[i] = enc.Event()
	}
	s.Status, s.Paused = r.status(), r.pause.waiting
	if r.done {
		s.Reason, s.Answer, s.Rounds = r.result.Reason, r.result.Text, r.result.Rounds
		if r.result.Err != nil {
			s.Error = r.result.Err.Error()
		}
	}
	return s
}

// Summary is a run as a list of runs shows it.
type Summary struct {
	ID        string    `json:"id"`
	Source    Source    `json:"source"`
	UserAgent string    `json:"user_agent,omitempty"`
	Message   string    `json:"message"` // the first message, as asked
	Status    string    `json:"status"`  // "running", "paused", or how it ended: an agent.Reason
	Started   time.Time `json:"started_at"`
	// ForkedFrom says which run, and which of its rounds, this one reruns.
	ForkedFrom *Fork `json:"forked_from,omitempty"`
	// Stored says the run comes from the Hub's Archive, the history, and
	// not from memory: an earlier start of the server ran it, or the Hub
	// has since dropped it.
	Stored bool `json:"stored,omitempty"`
	Setup
}

// Setup is what a run runs on, as its run_started event says: what tells
// apart two runs of one request. Empty before the run has started, and
// Dialect and Mode for a run an Archive lists without them.
type Setup struct {
	Model   string `json:"model,omitempty"`
	Dialect string `json:"dialect,omitempty"`
	Mode    string `json:"mode,omitempty"`
}

// matches reports whether the setup's model or dialect contains q, in
// lower case.
func (s Setup) matches(q string) bool {
	return strings.Contains(strings.ToLower(s.Model), q) || strings.Contains(s.Dialect, q)
}

// SetupOf reads a run_started event's Setup; the zero Setup for any other event.
func SetupOf(e agent.Event) Setup {
	if e.Run == nil {
		return Setup{}
	}
	return Setup{Model: e.Run.Model, Dialect: e.Run.Dialect, Mode: string(e.Run.Mode)}
}

// Summary returns the run as a list of runs shows it.
func (r *Run) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	status := r.status()
	return Summary{ID: r.ID, Source: r.Source, UserAgent: r.UserAgent, Message: r.Message, ForkedFrom: r.ForkedFrom,
		Status: status, Started: r.Started, Stored: r.stored, Setup: r.setup}
}

func newID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return prefix + "-" + hex.EncodeToString(b)
}

// Recorder is told of each run a Hub starts and of the run's end; in
// between it reads the run's events as they come with [Run.Log], at its
// own pace. Its methods are called on the run's own goroutine: they must
// return at once, whatever they do with what they are told.
type Recorder interface {
	Started(*Run)
	Finished(*Run)
}

// Archive is a Recorder that keeps runs after the Hub drops them, across
// restarts: the Hub's Get and Find look there for the runs it no longer
// keeps.
type Archive interface {
	Recorder
	// Load returns a finished run as recorded; ErrNoRun when it holds
	// none by that ID.
	Load(id string) (*Run, error)
	// Find lists the recorded runs whose text, model, tools or outcome
	// contain query (all for ""), newest first, at most limit of them
	// (all for 0).
	Find(query string, limit int) ([]Summary, error)
	// Status says where runs are kept, or why they no longer are.
	Status() History
}

// History says whether runs outlive the server, as /api/health shows it.
type History struct {
	On   bool   `json:"on"`
	Path string `json:"path,omitempty"` // the database, when on
	// Off says why runs are kept in memory only, when they are.
	Off string `json:"off,omitempty"`
}

// SetArchive makes the Hub record its runs in a, from the next run on.
func (h *Hub) SetArchive(a Archive) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.archive = a
}

// SetNoArchive records why the Hub keeps its runs in memory only, for
// [Hub.History] to say.
func (h *Hub) SetNoArchive(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noArchive = reason
}

// History says whether the Hub's runs outlive it.
func (h *Hub) History() History {
	h.mu.Lock()
	archive, reason := h.archive, h.noArchive
	h.mu.Unlock()
	if archive != nil {
		return archive.Status()
	}
	if reason == "" {
		reason = "no database was set up"
	}
	return History{Off: reason}
}

// Find is [Hub.List] with the Archive's runs too, those the Hub dropped
// or a previous server ran (marked Stored), newest first, at most limit
// of them (all for 0). A non-empty query keeps the runs in memory whose
// message, status, model or dialect contain it, and the archived runs the
// Archive finds (see [Archive.Find]).
func (h *Hub) Find(query string, limit int) ([]Summary, error) {
	var list []Summary
	kept := map[string]Summary{} // every run in memory, found or not
	found := map[string]bool{}
	q := strings.ToLower(query)
	for _, s := range h.List() {
		kept[s.ID] = s
		if strings.Contains(strings.ToLower(s.Message), q) || strings.Contains(s.Status, q) || s.Setup.matches(q) {
			list = append(list, s)
			found[s.ID] = true
		}
	}
	h.mu.Lock()
	archive := h.archive
	h.mu.Unlock()
	if archive != nil {
		stored, err := archive.Find(query, limit)
		if err != nil {
			return list, err
		}
		for _, s := range stored {
			// The Archive may find a run the Hub still keeps by its answer,
			// model or tools: it is listed as the Hub has it, not as stored.
			if mem, ok := kept[s.ID]; ok {
				if !found[s.ID] {
					list = append(list, mem)
					found[s.ID] = true
				}
				continue
			}
			s.Stored = true
			list = append(list, s)
		}
	}
	slices.SortStableFunc(list, func(a, b Summary) int { return b.Started.Compare(a.Started) })
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return list, nil
}

// Log returns the events recorded so far, which are never changed.
func (r *Run) Log() []Encoded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[:len(r.events):len(r.events)]
}

// Outcome returns how the run ended, and when, once done.
func (r *Run) Outcome() (res agent.Result, ended time.Time, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.result, r.ended, r.done
}

// Stored is a finished run as an Archive gives it back.
type Stored struct {
	Summary
	ConversationID string
	Result         agent.Result
	Ended          time.Time
	Events         []Encoded
}

// Restore returns a finished run from what an Archive kept of it: viewers
// replay its events, and their iteration then ends. Its Summary and
// Snapshot say it is stored. The token events of a run kept before they
// carried a region get theirs here, once (see [agent.WithRegions]).
func Restore(s Stored) *Run {
	s.Events = withRegions(s.Events)
	r := &Run{ID: s.ID, ConversationID: s.ConversationID, Message: s.Message, Source: s.Source,
		UserAgent: s.UserAgent, ForkedFrom: s.ForkedFrom, Started: s.Started, stored: true, cancel: func() {},
		changed: make(chan struct{}), events: s.Events, done: true, result: s.Result, ended: s.Ended}
	for _, e := range s.Events {
		r.bytes += len(e.JSON)
	}
	if len(s.Events) > 0 && s.Events[0].Type == agent.RunStarted {
		r.setup = SetupOf(s.Events[0].Event())
	}
	return r
}

// Observer sees each run a Hub starts, event by event, as the agent emits
// it: what a tracer or a meter of runs needs, where a [Recorder] reads
// the events behind the live stream.
type Observer interface {
	// Observe is called on the run's goroutine before its first event.
	// It returns the context the run runs under, derived from ctx, and
	// the function that sees each of its events, called on the run's
	// goroutine as the agent emits the event: it must return at once, or
	// it slows the run.
	Observe(ctx context.Context, r *Run) (context.Context, func(agent.Event))
}

// Observe makes the Hub show its runs to o, from the next run on.
func (h *Hub) Observe(o Observer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.observers = append(slices.Clip(h.observers), o)
}

// observeRun shows r to each of observers, and returns the context r
// runs under and the function that shows them each event.
func observeRun(ctx context.Context, r *Run, observers []Observer) (context.Context, func(agent.Event)) {
	switch len(observers) {
	case 0:
		return ctx, func(agent.Event) {}
	case 1:
		return observers[0].Observe(ctx, r)
	}
	fns := make([]func(agent.Event), len(observers))
	for i, o := range observers {
		ctx, fns[i] = o.Observe(ctx, r)
	}
	return ctx, func(e agent.Event) {
		for _, fn := range fns {
			fn(e)
		}
	}
}
