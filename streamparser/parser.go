// Package streamparser finds tool calls in a model's raw output while it
// streams. It reads the Qwen3 / Hermes dialect:
//
//	<think>reasoning</think>
//	free text
//	<tool_call>
//	{"name": "send_mail", "arguments": {"to": "john@example.com"}}
//	</tool_call>
//
// Feed it chunks as they arrive, in any sizes; it reports text, thinking
// and tool calls as Events. The same input gives the same events, once
// adjacent deltas are merged, however it is cut into chunks: a tag or a
// UTF-8 character split across chunks is held back until it is whole, and
// anything held back that turns out not to be a tag comes out as text, in
// order. Nothing is dropped: every byte of input is in some event.
//
// A <tool_call> written inside <think> is thinking: the model is planning a
// call, not making it, and the trained format puts calls after </think>.
//
// The parser does no I/O and starts no goroutines. On plain text it does
// not allocate: Text events are slices of the chunk that was fed.
package streamparser

import (
	"strings"
	"unicode/utf8"
)

// Kind tells what an Event reports.
type Kind uint8

const (
	// Text is reply text outside any tag.
	Text Kind = iota + 1
	// Thinking is reasoning inside <think>…</think>.
	Thinking
	// ThinkingOpen and ThinkingClose report the <think> and </think> tags.
	ThinkingOpen
	ThinkingClose
	// CallOpen reports a <tool_call> tag: a call with Index has begun.
	CallOpen
	// CallDelta carries characters written inside the open call, so that a
	// screen can show the JSON being written.
	CallDelta
	// CallParsed reports a closed call whose JSON named a tool.
	CallParsed
	// CallInvalid reports a closed (or never closed) call that cannot be
	// run; Reason says why, in words the model can act on.
	CallInvalid
)

var kindNames = [...]string{Text: "text", Thinking: "thinking", ThinkingOpen: "thinking_open",
	ThinkingClose: "thinking_close", CallOpen: "call_open",
	CallDelta: "call_delta", CallParsed: "call_parsed", CallInvalid: "call_invalid"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one thing the parser found. Which fields are set depends on Kind.
type Event struct {
	Kind Kind
	// Text holds the characters of a Text, Thinking or CallDelta event.
	Text string
	// Index numbers the calls of one reply from 0, in the order they open.
	Index int
	// Call is set on CallParsed and CallInvalid.
	Call *Call
}

// Options set how a parser starts.
type Options struct {
	// InThinking starts the parser inside a thinking block, for prompts
	// that end with an opened <think> so the reply has no opening tag.
	InThinking bool
}

// Parser is an incremental tool-call parser. The zero value is ready to
// use, outside thinking. A Parser is not safe for concurrent use.
type Parser struct {
	mode mode
	// held is a tag prefix seen at the end of a chunk: it is a tag only if
	// the next bytes complete it.
	held string
	// partial is the start of a UTF-8 character cut by a chunk boundary.
	partial    [utf8.UTFMax]byte
	partialLen int

	calls int
	raw   []byte // characters of the open call
	json  jsonScanner
}

type mode uint8

const (
	inText mode = iota
	inThinking
	inCall
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
	callOpen   = "<tool_call>"
	callClose  = "</tool_call>"
)

// New returns a parser set up by opts.
func New(opts Options) *Parser {
	p := &Parser{}
	p.Reset(opts)
	return p
}

// Reset makes p ready for a new reply, keeping its buffers.
func (p *Parser) Reset(opts Options) {
	*p = Parser{raw: p.raw[:0]}
	if opts.InThinking {
		p.mode = inThinking
	}
}

// Pending returns the characters held back because they may be the start
// of a tag or of a UTF-8 character. A screen can show them as pending.
func (p *Parser) Pending() string {
	return p.held + string(p.partial[:p.partialLen])
}

// Feed parses the next chunk of the reply and calls emit for each event,
// in order. Events may be kept: the parser never reuses their memory.
func (p *Parser) Feed(chunk string, emit func(Event)) {
	s := chunk
	for len(s) > 0 {
		switch {
		case p.partialLen > 0:
			s = p.completeRune(s, emit)
		case p.held != "":
			s = p.extendTag(s, emit)
		case p.mode == inCall:
			s = p.scanCall(s, emit)
		default:
			s = p.scanText(s, emit)
		}
	}
}

// Flush ends the reply: whatever was held back comes out as characters,
// and a call that was never closed is reported as invalid.
func (p *Parser) Flush(emit func(Event)) {
	if p.held != "" {
		p.chars(p.held, emit)
		p.held = ""
	}
	if p.partialLen > 0 {
		p.chars(string(p.partial[:p.partialLen]), emit)
		p.partialLen = 0
	}
	if p.mode == inCall {
		p.endCall(emit, &Call{Raw: string(p.raw), Reason: Unclosed})
	}
}

// Unclosed is the Reason of a call that the reply never closed.
const Unclosed = "the <tool_call> was never closed: end each call with " + callClose

// tags returns the tags that change the current mode. Inside a call only
// the closing tag counts, and only outside JSON strings (scanCall checks).
func (p *Parser) tags() []string {
	switch p.mode {
	case inThinking:
		return thinkingTags
	case inCall:
		return callTags
	}
	return textTags
}

var (
	textTags     = []string{thinkOpen, callOpen}
	thinkingTags = []string{thinkClose}
	callTags     = []string{callClose}
)

// scanText handles text and thinking: everything up to a possible tag is
// emitted as one slice of s.
func (p *Parser) scanText(s string, emit func(Event)) string {
	from := 0
	for {
		i := strings.IndexByte(s[from:], '<')
		if i < 0 {
			return p.charsUpToPartial(s, emit)
		}
		at := from + i
		tag, prefix := matchTag(s[at:], p.tags())
		if tag == "" && !prefix {
			from = at + 1
			continue
		}
		if at > 0 {
			p.chars(s[:at], emit)
		}
		if prefix {
			p.held = s[at:]
			return ""
		}
		p.enter(tag, emit)
		return s[at+len(tag):]
	}
}

// scanCall passes the characters of an open call through the JSON string
// tracker so that a closing tag inside a string does not end the call.
func (p *Parser) scanCall(s string, emit func(Event)) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !p.json.step(c) || c != '<' {
			continue
		}
		tag, prefix := matchTag(s[i:], callTags)
		if tag == "" && !prefix {
			continue
		}
		if i > 0 {
			p.chars(s[:i], emit)
		}
		if prefix {
			p.held = s[i:]
			return ""
		}
		p.enter(tag, emit)
		return s[i+len(tag):]
	}
	return p.charsUpToPartial(s, emit)
}

// extendTag decides a held tag prefix with the bytes that follow it.
func (p *Parser) extendTag(s string, emit func(Event)) string {
	need := 0
	for _, t := range p.tags() {
		if strings.HasPrefix(t, p.held) {
			need = max(need, len(t)-len(p.held))
		}
	}
	next := s[:min(need, len(s))]
	for _, t := range p.tags() {
		if !strings.HasPrefix(t, p.held) {
			continue
		}
		rest := t[len(p.held):]
		switch {
		case strings.HasPrefix(next, rest):
			p.held = ""
			p.enter(t, emit)
			return s[len(rest):]
		case strings.HasPrefix(rest, next):
			// Still a prefix; the held string is a tag's own prefix, so the
			// longer one is too and no allocation is needed.
			p.held = t[:len(p.held)+len(next)]
			return s[len(next):]
		}
	}
	// Not a tag after all: its first byte is a character and the rest is
	// read again, since it may start a tag of its own ("<<think>").
	held := p.held
	p.held = ""
	p.chars(held[:1], emit)
	p.Feed(held[1:], emit)
	return s
}

// completeRune finishes a UTF-8 character cut by a chunk boundary.
func (p *Parser) completeRune(s string, emit func(Event)) string {
	want := runeLen(p.partial[0])
	n := 0
	for p.partialLen+n < want && n < len(s) && !utf8.RuneStart(s[n]) {
		n++
	}
	if p.partialLen+n < want && n == len(s) {
		copy(p.partial[p.partialLen:], s)
		p.partialLen += n
		return ""
	}
	r := string(p.partial[:p.partialLen]) + s[:n]
	p.partialLen = 0
	p.chars(r, emit)
	return s[n:]
}

// charsUpToPartial emits s except a UTF-8 character cut at its end, which
// it holds back so that every event is whole characters.
func (p *Parser) charsUpToPartial(s string, emit func(Event)) string {
	cut := len(s) - partialTail(s)
	if cut > 0 {
		p.chars(s[:cut], emit)
	}
	p.partialLen = copy(p.partial[:], s[cut:])
	return ""
}

// chars emits characters in the current mode.
func (p *Parser) chars(s string, emit func(Event)) {
	switch p.mode {
	case inText:
		emit(Event{Kind: Text, Text: s})
	case inThinking:
		emit(Event{Kind: Thinking, Text: s})
	case inCall:
		p.raw = append(p.raw, s...)
		emit(Event{Kind: CallDelta, Text: s, Index: p.calls})
	}
}

// enter acts on a complete tag.
func (p *Parser) enter(tag string, emit func(Event)) {
	switch tag {
	case thinkOpen:
		p.mode = inThinking
		emit(Event{Kind: ThinkingOpen})
	case thinkClose:
		p.mode = inText
		emit(Event{Kind: ThinkingClose})
	case callOpen:
		p.mode = inCall
		p.raw = p.raw[:0]
		p.json = jsonScanner{}
		emit(Event{Kind: CallOpen, Index: p.calls})
	case callClose:
		p.endCall(emit, parseCall(string(p.raw)))
	}
}

func (p *Parser) endCall(emit func(Event), c *Call) {
	kind := CallParsed
	if c.Reason != "" {
		kind = CallInvalid
	}
	emit(Event{Kind: kind, Index: p.calls, Call: c})
	p.calls++
	p.mode = inText
	p.raw = p.raw[:0]
}

// matchTag reports whether s starts with one of tags, or is itself the
// start of one (the chunk ended inside a possible tag).
func matchTag(s string, tags []string) (tag string, prefix bool) {
	for _, t := range tags {
		if strings.HasPrefix(s, t) {
			return t, false
		}
		if len(s) < len(t) && strings.HasPrefix(t, s) {
			prefix = true
		}
	}
	return "", prefix
}

// partialTail returns how many bytes at the end of s begin a UTF-8
// character that s does not finish.
func partialTail(s string) int {
	for n := 1; n < utf8.UTFMax && n <= len(s); n++ {
		c := s[len(s)-n]
		if utf8.RuneStart(c) {
			if runeLen(c) > n {
				return n
			}
			return 0
		}
	}
	return 0
}

// runeLen is the length of the UTF-8 sequence that starts with c, or 1 for
// a byte that cannot start one (it passes through as is).
func runeLen(c byte) int {
	switch {
	case c < 0xC0 || c >= 0xF8:
		return 1
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}
