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
// recording, and a line that is not an event are an [*Error] that says
// which.
package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
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
	Settings   Settings  `json:"settings"`
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

// Settings are the run's settings as far as its events tell them. Never
// a secret: an API key stays out of the file.
type Settings struct {
	Backend string   `json:"backend"`
	Model   string   `json:"model"`
	Mode    llm.Mode `json:"mode"`
	Dialect string   `json:"dialect"`
	// Think is whether reasoning was asked for in the first round; nil
	// when the run never reached one.
	Think *bool    `json:"think,omitempty"`
	Tools []string `json:"tools"`
}

// NewHeader describes a run for its recording: run as the caller knows
// it, the settings and model from its events (run_started and the first
// round_started).
func NewHeader(run Run, events []agent.Event) Header {
	h := Header{Toolscope: Version(), Format: Format, ExportedAt: time.Now().UTC(), Run: run}
	for _, e := range events {
		switch {
		case e.Type == agent.RunStarted && e.Run != nil:
			h.Model = e.Run.Info
			h.Settings.Backend, h.Settings.Model, h.Settings.Mode = e.Run.Backend, e.Run.Model, e.Run.Mode
			h.Settings.Dialect, h.Settings.Tools = e.Run.Dialect, e.Run.Tools
		case e.Type == agent.RoundStarted && e.Input != nil && h.Settings.Think == nil:
			think := e.Input.Think
			h.Settings.Think = &think
		}
	}
	return h
}

// Version is this toolscope's version as the go command stamped it: a
// tag for `go install …@v1.2.3`, a pseudo-version from a git checkout,
// "devel" when there is none.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
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
}

// Kind is what is wrong with a file.
type Kind int

// Kinds of Error.
const (
	NotRecording Kind = iota + 1 // not a toolscope recording at all
	NewerFormat                  // a recording a newer toolscope wrote
	BadHeader                    // line 1 is a recording's, but broken
	BadEvent                     // a line after the header is not an event
)

func (e *Error) Error() string {
	switch e.Kind {
	case NotRecording:
		return "this is not a toolscope recording: " + e.Detail
	case NewerFormat:
		return fmt.Sprintf("format %d is newer than this toolscope reads (%d): update toolscope", e.Format, Format)
	case BadHeader:
		return fmt.Sprintf("line %d is not a valid recording header: %s", e.Line, e.Detail)
	}
	return fmt.Sprintf("line %d is not an event: %s", e.Line, e.Detail)
}

// Read reads a recording, checking that it is one this toolscope can
// play. Its errors are an *Error, or the reader's own.
func Read(r io.Reader) (Header, []agent.Event, error) {
	br := bufio.NewReader(r)
	var (
		h      Header
		header bool // line 1 is read: blank lines do not count
		events []agent.Event
		n      int
	)
	for {
		line, readErr := br.ReadBytes('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return h, nil, readErr
		}
		n++
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			// Blank lines, a last newline and CRLF endings are an editor's.
		case !header:
			var err error
			if h, err = readHeader(line, n); err != nil {
				return h, nil, err
			}
			header = true
		default:
			e, err := readEvent(line, n)
			if err != nil {
				return h, nil, err
			}
			if len(events) > 0 && e.Seq <= events[len(events)-1].Seq {
				return h, nil, &Error{Line: n, Kind: BadEvent, Detail: fmt.Sprintf("its seq %d does not follow %d: events must be in order", e.Seq, events[len(events)-1].Seq)}
			}
			events = append(events, e)
		}
		if readErr != nil {
			break
		}
	}
	if !header {
		return h, nil, &Error{Kind: NotRecording, Detail: "the file is empty"}
	}
	return h, events, nil
}

func readHeader(line []byte, n int) (Header, error) {
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

func readEvent(line []byte, n int) (agent.Event, error) {
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
	return e, nil
}
