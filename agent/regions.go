package agent

import (
	"slices"

	"github.com/toolscope/toolscope/streamparser"
)

// WithRegions returns a run's events with the [Token] events that lack a
// Region (those of runs recorded before Token events carried one: one
// event per chunk, the chunk as the backend sent it) given theirs, for
// readers of stored and recorded runs to call once as they read them.
//
// It reads each such round's chunks again through the parser of the
// run's dialect (RunStarted's Run.Dialect, with its Run.Tools for
// Pythonic), starting in thinking as the round's RoundStarted says, or
// the Edited event of its input. The Token events that come out are
// those a run of today sends for the same chunks: the raw text split
// where its region changes, with what the parser then holds back, and
// the bytes it held to the end sent before RoundFinished. Every event
// after the first one added moves up in Seq, the gaps in Seq kept.
//
// Events whose Token events all have a Region come back as they are, the
// same slice, and so do those of a run whose dialect is not known: their
// chunks cannot be read again.
func WithRegions(events []Event) []Event {
	if !slices.ContainsFunc(events, lacksRegion) {
		return events
	}
	s := regioner{out: make([]Event, 0, len(events)+len(events)/2)}
	if first := events[0]; first.Type != RunStarted || first.Run == nil || !s.start(first.Run) {
		return events
	}
	for _, e := range events {
		s.add(e)
	}
	return s.out
}

// lacksRegion says e is a Token event of a run recorded before Token
// events carried a Region: today's always have one.
func lacksRegion(e Event) bool { return e.Type == Token && e.Region == "" }

// regioner is WithRegions under way.
type regioner struct {
	out    []Event
	shift  int // how far Seq moved up: the Token events added so far
	opts   streamparser.Options
	parser streamparser.Parser
	// reading: the round's Token events lack regions, and the parser
	// reads their chunks, holding back unread.
	reading bool
	unread  string
}

// start sets the parser's options from the run's start; false when its
// dialect is not known.
func (s *regioner) start(run *RunInfo) bool {
	d, err := streamparser.ParseDialect(run.Dialect)
	s.opts = streamparser.Options{Dialect: d, Tools: run.Tools}
	return err == nil
}

// add reads one event of the run.
func (s *regioner) add(e Event) {
	switch {
	case e.Type == RoundStarted, e.Type == Edited && e.Change != nil && e.Change.At == AtInput:
		s.opts.InThinking = e.StartsInThinking
		_ = s.parser.Reset(s.opts) // start checked the dialect
		s.reading, s.unread = false, ""
	case lacksRegion(e):
		s.reading = true
		s.parser.Feed(e.Text, ignore)
		s.unread = readTokens(s.unread+e.Text, &s.parser, s.tokenOf(e))
		s.shift--
		return
	case e.Type == RoundFinished && s.reading:
		s.parser.Flush(ignore)
		readTokens(s.unread, &s.parser, s.tokenOf(e))
		s.reading, s.unread = false, ""
	}
	e.Seq += s.shift
	s.out = append(s.out, e)
}

// tokenOf returns the function that sends a Token event read from old's
// chunk, or held back until old (a RoundFinished) ended the reply: it
// stands where old stood, at old's time.
func (s *regioner) tokenOf(old Event) func(Event) {
	return func(e Event) {
		e.Seq, e.AtMS, e.Round = old.Seq+s.shift, old.AtMS, old.Round
		s.shift++
		s.out = append(s.out, e)
	}
}

// ignore drops the parser's events: the run's own are already there.
func ignore(streamparser.Event) {}
