// Package recording reads and writes recordings: a run kept in a file, to
// be played again where no model runs (a classroom laptop with no GPU).
//
// A recording is JSON Lines. Line 1 is a [Header]: which toolscope wrote
// it, in which format, and the run's settings and model. Every line after
// it is one agent.Event, exactly as the run's event stream sends it.
//
// # Compatibility
//
// [Read] takes every recording of format [Format] or older, whatever the
// version of toolscope that wrote it: fields added to events or to the
// header later are optional, and an event type it does not know is kept
// for the front end to skip. A newer format, a file that is not a
// recording, a line that is not an event (or lacks the field its type
// always carries, such as run_started's run) and a file larger than any
// run records ([MaxBytes], [MaxLineBytes], [MaxEvents]) are an [*Error]
// that says which. A UTF-8 byte order mark at the start is skipped; a
// file cut mid-line gives the events before the cut. The token events of
// a run recorded before they carried a region get theirs as Read reads
// them ([agent.WithRegions]), so an older recording plays tinted as a run
// of today does.
package recording

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/buildinfo"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/runs"
	"github.com/toolscope/toolscope/transcript"
)

// Format is the version of the file layout that this toolscope writes and
// the newest it reads. It changes only when an older toolscope could no
// longer read the file right; new optional fields do not change it.
const Format = 1

// Header is a recording's first line.
type Header struct {
	// Toolscope is the version of toolscope that wrote the file; its
	// presence is what marks a file as a recording.
	Toolscope  string    `json:"toolscope"`
	Format     int       `json:"format"`
	ExportedAt time.Time `json:"exported_at"`
	Run        Run       `json:"run"`
	// Settings are the run's settings as its run_started recorded them
	// (agent.RunInfo.Settings): every value that shaped the run, by key,
	// never a secret. A run from before runs kept their settings has
	// none; a recording of toolscope 0.1 holds the few its events told
	// (backend, model, mode, dialect, think, tools).
	Settings json.RawMessage `json:"settings,omitempty"`
	// Model is the model that answered, as its backend described it.
	Model llm.Info `json:"model"`
}

// Run says which run was recorded.
type Run struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	Message        string    `json:"message"`
	Source         string    `json:"source"` // "page" or "api", as in GET /api/runs
	StartedAt      time.Time `json:"started_at,omitzero"`
}

// NewHeader describes a run for its recording: run as the caller knows
// it, the settings and model its run_started event recorded.
func NewHeader(run Run, events []agent.Event) Header {
	h := Header{Toolscope: buildinfo.Version(), Format: Format, ExportedAt: time.Now().UTC(), Run: run}
	if r := transcript.Fold(events).Run; r != nil {
		h.Model, h.Settings = r.Info, r.Settings
	}
	return h
}

// Write writes a recording: header, then events one a line, each as
// encoding/json gives it, which is what the event stream sends.
func Write(w io.Writer, h Header, events []agent.Event) error {
	bw := bufio.NewWriter(w)
	for i := -1; i < len(events); i++ {
		var v any = h
		if i >= 0 {
			v = events[i]
		}
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Bounds of what [Read] takes: no run records more, so a file beyond them
// is not a recording, and reading /dev/zero or an endless pipe stops at
// them instead of filling memory.
const (
	// MaxEvents is the most events a run records (runs.DefaultMaxRunEvents).
	MaxEvents = runs.DefaultMaxRunEvents
	// MaxLineBytes bounds a line: one event cannot outgrow the bytes a
	// whole run may record (runs.DefaultMaxRunBytes), and the header
	// repeats run_started.
	MaxLineBytes = runs.DefaultMaxRunBytes
	// MaxBytes bounds the whole file: a run's events, a header as large,
	// and room for line ends and for the error and run_finished a run
	// stopped at its limit still records.
	MaxBytes = 2*runs.DefaultMaxRunBytes + 1<<20
)

// Error is a file that cannot be played: what is wrong, and where.
type Error struct {
	// Line is the line at fault, from 1; 0 for the file as a whole.
	Line int
	// Kind says what is wrong, for a front end to word or act on.
	Kind Kind
	// Detail is what exactly, such as the JSON decoder's complaint.
	Detail string
	// Format is the file's format, for NewerFormat.
	Format int
	// Max is the bound exceeded, for TooLong and TooLarge (bytes) and
	// TooManyEvents (events).
	Max int
}

// Kind is what is wrong with a file.
type Kind int

// Kinds of Error.
const (
	NotRecording  Kind = iota + 1 // not a toolscope recording at all
	NewerFormat                   // a recording a newer toolscope wrote
	BadHeader                     // line 1 is a recording's, but broken
	BadEvent                      // a line after the header is not an event
	TooLong                       // a line is longer than MaxLineBytes
	TooLarge                      // the file is larger than MaxBytes
	TooManyEvents                 // the file holds more than MaxEvents events
	// Cut is a file that ends mid-line, as a copy or download stopped
	// short does: its last line has no line end and is not JSON. Read
	// returns the events before it along with this error.
	Cut
)

func (e *Error) Error() string {
	switch e.Kind {
	case NotRecording:
		return "this is not a toolscope recording: " + e.Detail
	case NewerFormat:
		return fmt.Sprintf("format %d is newer than this toolscope reads (%d): update toolscope", e.Format, Format)
	case BadHeader:
		return fmt.Sprintf("line %d is not a valid recording header: %s", e.Line, e.Detail)
	case TooLong:
		return fmt.Sprintf("line %d is longer than %d MiB, more than any line of a recording", e.Line, e.Max>>20)
	case TooLarge:
		return fmt.Sprintf("the file is larger than %d MiB, more than any recording", e.Max>>20)
	case TooManyEvents:
		return fmt.Sprintf("line %d is one event more than the %d a recording may hold", e.Line, e.Max)
	case Cut:
		return fmt.Sprintf("the file is cut at line %d: it ends mid-event", e.Line)
	}
	return fmt.Sprintf("line %d is not an event: %s", e.Line, e.Detail)
}

// Read reads a recording, checking that it is one this toolscope can
// play; see [ReadContext].
func Read(r io.Reader) (Header, []agent.Event, error) {
	return ReadContext(context.Background(), r)
}

// ReadContext reads a recording like [Read], and gives up as soon as ctx
// ends, even while r's Read blocks (a pipe nobody writes to): it then
// returns ctx's error, and leaves the blocked Read behind, to end when r
// is closed. Its other errors are an *Error, or the reader's own. A file
// cut mid-line gives the events before the cut and an *Error of Kind Cut.
func ReadContext(ctx context.Context, r io.Reader) (Header, []agent.Event, error) {
	d := decoder{br: bufio.NewReaderSize(&ctxReader{ctx: ctx, r: r}, 64<<10)}
	for {
		line, readErr := d.line()
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return d.h, nil, readErr
		}
		if err := d.take(line, readErr != nil); err != nil {
			if err.Kind == Cut {
				return d.h, agent.WithRegions(d.events), err
			}
			return d.h, nil, err
		}
		if readErr != nil {
			break
		}
	}
	if !d.header {
		return d.h, nil, &Error{Kind: NotRecording, Detail: "the file is empty"}
	}
	return d.h, agent.WithRegions(d.events), nil
}

// bom is the byte order mark some editors (Windows Notepad) start a
// UTF-8 file with.
var bom = []byte("\uFEFF")

// decoder is a recording read so far.
type decoder struct {
	br     *bufio.Reader
	n      int // lines read
	size   int // bytes read
	h      Header
	header bool // line 1 is read: blank lines do not count
	events []agent.Event
}

// line reads the next line, with its end, refusing one longer than
// MaxLineBytes before it is all in memory. Like bufio's ReadBytes, it
// returns an error if and only if the line has no end.
func (d *decoder) line() ([]byte, error) {
	d.n++
	var line []byte
	for {
		frag, err := d.br.ReadSlice('\n')
		if len(line)+len(frag) > MaxLineBytes {
			return nil, &Error{Line: d.n, Kind: TooLong, Max: MaxLineBytes}
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if d.size += len(line); d.size > MaxBytes {
				return nil, &Error{Kind: TooLarge, Max: MaxBytes}
			}
			if d.n == 1 {
				line = bytes.TrimPrefix(line, bom)
			}
			return line, err
		}
	}
}

// take reads one line; last says it is the file's last and has no end.
func (d *decoder) take(line []byte, last bool) *Error {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		// Blank lines, a last newline and CRLF endings are an editor's.
	case !d.header:
		var err *Error
		if d.h, err = readHeader(line, d.n); err != nil {
			return err
		}
		d.header = true
	case last && !json.Valid(line):
		return &Error{Line: d.n, Kind: Cut}
	case len(d.events) == MaxEvents:
		return &Error{Line: d.n, Kind: TooManyEvents, Max: MaxEvents}
	default:
		e, err := readEvent(line, d.n)
		if err != nil {
			return err
		}
		if len(d.events) > 0 && e.Seq <= d.events[len(d.events)-1].Seq {
			return &Error{Line: d.n, Kind: BadEvent, Detail: fmt.Sprintf("its seq %d does not follow %d: events must be in order", e.Seq, d.events[len(d.events)-1].Seq)}
		}
		d.events = append(d.events, e)
	}
	return nil
}

// ctxReader is a reader that gives up when ctx ends: each Read runs apart,
// and is left behind if ctx ends first.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte // a Read left behind may still write to it: never reused after
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(c.buf[:len(p)])
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, c.buf[:res.n]), res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

func readHeader(line []byte, n int) (Header, *Error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return Header{}, &Error{Line: n, Kind: NotRecording, Detail: "the first line is not a JSON object"}
	}
	if _, ok := probe["toolscope"]; !ok {
		return Header{}, &Error{Line: n, Kind: NotRecording, Detail: `the first line has no "toolscope" field`}
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return h, &Error{Line: n, Kind: BadHeader, Detail: err.Error()}
	}
	switch {
	case h.Format > Format:
		return h, &Error{Line: n, Kind: NewerFormat, Format: h.Format}
	case h.Format < 1:
		return h, &Error{Line: n, Kind: BadHeader, Detail: `"format" must be a whole number from 1`}
	}
	return h, nil
}

func readEvent(line []byte, n int) (agent.Event, *Error) {
	var e agent.Event
	if err := json.Unmarshal(line, &e); err != nil {
		return e, &Error{Line: n, Kind: BadEvent, Detail: err.Error()}
	}
	switch {
	case e.Type == "":
		return e, &Error{Line: n, Kind: BadEvent, Detail: `it has no "type"`}
	case e.Seq < 1:
		return e, &Error{Line: n, Kind: BadEvent, Detail: `it has no "seq" from 1`}
	}
	if field := missing(e); field != "" {
		return e, &Error{Line: n, Kind: BadEvent, Detail: fmt.Sprintf("%s has no %s", e.Type, field)}
	}
	return e, nil
}

// missing names the field e's type always carries (see agent.Type) when
// e lacks it: a front end draws an event from it.
func missing(e agent.Event) string {
	var has bool
	var field string
	switch e.Type {
	case agent.RunStarted:
		has, field = e.Run != nil, "run"
	case agent.ToolsSelected:
		has, field = e.Selection != nil, "selection"
	case agent.RoundStarted:
		has, field = e.Input != nil, "input"
	case agent.ToolCallOpened, agent.ToolCallDelta, agent.ToolCallParsed, agent.ToolCallInvalid, agent.ToolCallCut, agent.ToolStarted, agent.ToolFinished:
		has, field = e.Call != nil, "call"
	case agent.RoundFinished:
		has, field = e.Stats != nil, "stats"
	case agent.Paused:
		has, field = e.Pause != nil, "pause"
	case agent.Edited:
		has, field = e.Change != nil, "change"
	case agent.ElicitationRequested, agent.ElicitationAnswered, agent.ElicitationCompleted,
		agent.SamplingRequested, agent.SamplingToken, agent.SamplingFinished, agent.SamplingAnswered:
		has, field = e.Ask != nil, "ask"
	default:
		return ""
	}
	if has {
		return ""
	}
	return field
}
