// Package streamparser finds tool calls in a model's raw output while it
// streams. It reads the dialects models write calls in (see [Dialect]), and
// each dialect also says how a prompt teaches it, how a model writes it
// and what a screen highlights in it. The default is Qwen3's, [Hermes]:
//
//	<think>reasoning</think>
//	free text
//	<tool_call>
//	{"name": "send_mail", "arguments": {"to": "john@example.com"}}
//	</tool_call>
//
// # Feeding a reply
//
// Make a [Parser] with [New] (the zero Parser reads Hermes; a Dialect in
// [Options] that is none of [Dialects] is New's error), give it each
// chunk as it arrives with [Parser.Feed], in any sizes, and end the reply
// with [Parser.Flush]. Both report what they find through a callback, as
// [Event] values whose [Kind] says what they are: [Text], [Thinking], the
// thinking tags, and for each call [CallOpen], [CallDelta] while it is
// written, then [CallParsed] or [CallInvalid] with the whole [Call].
// [Parser.Pending] is what is held back between chunks, and
// [Parser.Read] where the bytes each call read stand ([TextRegion],
// [ThinkRegion] or [CallRegion]), so that a screen can tint raw output
// as the parser reads it; [Parser.Reset] makes a Parser ready for the
// next reply. The package Example feeds a
// reply cut in awkward places; [Parser.Flush]'s shows a reply that ends
// inside a call.
//
// # Guarantees
//
// The same input gives the same events, once adjacent deltas are merged,
// however it is cut into chunks: a tag or a UTF-8 character split across
// chunks is held back until it is whole, and anything held back that turns
// out not to be a tag comes out as text, in order. Nothing is dropped: the
// Text and Thinking events, the thinking tags and the Text of every call
// rebuild the input byte for byte.
//
// The separators between calls ("[", ", ", "]", "; ") belong to the
// calls, not to the reply's text: they are in the calls' Text.
//
// The parser does no I/O and starts no goroutines. On plain text it does
// not allocate: Text events are slices of the chunk that was fed. A Parser
// is not safe for concurrent use; a program parsing many replies at once
// gives each its own.
//
// # Thinking
//
// <think>…</think> is read in every dialect: models think whatever call
// format they are told. A call written inside <think> is thinking: the
// model is planning a call, not making it, and the trained formats put
// calls after </think>. But a reply that ends inside thinking after a call
// marker ends with a [CallInThinking] event, so that the call the model
// meant to make is not lost without a word. [Options.InThinking] starts a
// parser inside thinking, for a prompt that opens the block itself (see
// [OpensThinking]).
//
// # Dialects
//
// [Dialects] lists them and [ParseDialect] reads one's name. Besides the
// markers the parser reads, a dialect gives the paragraph of a system
// prompt that teaches it ([Dialect.Instructions]), writes calls as a model
// taught by it does ([Dialect.WriteCalls], to fake a reply in a test or a
// demo), and tells a screen what to highlight ([Dialect.Describe]).
// [Pythonic] reads a bare name(…) only for the tools named in
// [Options.Tools] (see the Example of [New]).
package streamparser

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind tells what an Event reports.
type Kind uint8

const (
	// Text is reply text outside any tag or call.
	Text Kind = iota + 1
	// Thinking is reasoning inside <think>…</think>.
	Thinking
	// ThinkingOpen and ThinkingClose report the <think> and </think> tags.
	ThinkingOpen
	ThinkingClose
	// CallOpen reports that a call with Index has begun.
	CallOpen
	// CallDelta carries characters of the open call's Raw, so that a
	// screen can show the call being written.
	CallDelta
	// CallParsed reports a finished call that names a tool.
	CallParsed
	// CallInvalid reports a finished (or never finished) call that cannot
	// be run; Reason says why, in words the model can act on.
	CallInvalid
	// CallInThinking ends a reply that ended inside thinking after a call
	// marker: the model wrote a call where it is not run. Text is the
	// marker. It comes from Flush, after every other event.
	CallInThinking
)

var kindNames = [...]string{Text: "text", Thinking: "thinking", ThinkingOpen: "thinking_open",
	ThinkingClose: "thinking_close", CallOpen: "call_open",
	CallDelta: "call_delta", CallParsed: "call_parsed", CallInvalid: "call_invalid",
	CallInThinking: "call_in_thinking"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one thing the parser found. Which fields are set depends on Kind.
type Event struct {
	Kind Kind
	// Text holds the characters of a Text, Thinking or CallDelta event,
	// or the marker of a CallInThinking event.
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
	// Dialect is how the model writes calls; the zero value is Hermes.
	Dialect Dialect
	// Tools names the tools the model may call. Pythonic reads a bare
	// name(…), or a list [name(…), …], as calls only for these names, and
	// only for names made of ASCII letters, digits, '_', '.' and '-'.
	// Other dialects ignore them.
	Tools []string
	// Schemas are the tools' parameter schemas (JSON Schema objects with
	// "properties"), by tool name. Qwen3Coder reads a value as JSON only
	// where its parameter's "type" is not "string": its values are written
	// bare. Other dialects ignore them.
	Schemas map[string]json.RawMessage
}

// Parser is an incremental tool-call parser. The zero value is ready to
// use: Hermes, outside thinking. A Parser is not safe for concurrent use.
type Parser struct {
	syn  *syntax
	mode mode
	// held is a tag prefix seen at the end of a chunk: it is a tag only if
	// the next bytes complete it.
	held string
	// partial is the start of a UTF-8 character cut by a chunk boundary.
	partial    [utf8.UTFMax]byte
	partialLen int

	// textTags are the tags read in reply text: <think>, the dialect's
	// markers and, from index nameTags on, the "name(" of known tools.
	textTags []string
	nameTags int
	// firsts marks the first bytes of textTags: it is the syntax's set
	// unless tools' names add their own.
	firsts *byteSet
	// lead is the last reply-text byte before the scan position that is
	// not a space or a tab, 0 after a tag or a call. A tool's bare name
	// opens a call only where a call can stand: see callCanStart.
	lead byte
	// bareObject: a '{' at the scan position opens a call.
	bareObject bool

	calls int
	call  []byte // the open call as written so far
	rawAt int    // where the open call's Raw starts in call
	named bool   // the open call's prelude has had a tool name
	// argsAt counts the bytes of the syntax's argsTag read after a name.
	argsAt int
	// list: the open call is an element of a list, which its top-level
	// commas and closing bracket end.
	list bool
	nest nest

	// seps: the bytes after a call may separate it from the next one, and
	// are read into call[:sepLen] until a byte that is not a separator or
	// a space; then they open the next call's Text, or are text.
	seps   bool
	sepLen int
	// thoughtCall is the first call marker read in the open thinking block.
	thoughtCall string
	schemas     map[string]json.RawMessage

	// read is where the bytes the last Feed or Flush read stand.
	read []Span
}

// Span is a run of bytes that the parser read in one region.
type Span struct {
	Region Region
	Len    int
}

type mode uint8

const (
	inText mode = iota
	inThinking
	inCall
)

// region is the region of the bytes read in the mode.
func (m mode) region() Region { return modeRegions[m] }

var modeRegions = [...]Region{inText: TextRegion, inThinking: ThinkRegion, inCall: CallRegion}

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// New returns a parser set up by opts, or an error when opts.Dialect is
// not one of Dialects().
func New(opts Options) (*Parser, error) {
	p := &Parser{}
	if err := p.Reset(opts); err != nil {
		return nil, err
	}
	return p, nil
}

// Reset makes p ready for a new reply, keeping its buffers. When
// opts.Dialect is not one of Dialects() it returns an error and leaves p
// as it was.
func (p *Parser) Reset(opts Options) error {
	x, err := opts.Dialect.known()
	if err != nil {
		return err
	}
	p.reset(x, opts)
	return nil
}

func (p *Parser) reset(x *syntax, opts Options) {
	*p = Parser{syn: x, call: p.call[:0], read: p.read[:0], textTags: x.textTags, nameTags: len(x.textTags),
		firsts: &x.firsts, bareObject: x.bareObject, schemas: opts.Schemas}
	if x.lang == pythonLang {
		p.addNames(opts.Tools)
	}
	if opts.InThinking {
		p.mode = inThinking
	}
}

// addNames makes "name(" a tag for each tool that can be called bare, and
// "[name(" one that opens a list of calls.
func (p *Parser) addNames(tools []string) {
	tags := slices.Clip(p.textTags)
	for _, name := range tools {
		if name != "" && strings.IndexFunc(name, func(r rune) bool { return r > 0x7f || !isIdent(byte(r)) }) < 0 {
			tags = append(tags, name+"(", "["+name+"(")
		}
	}
	p.textTags = tags
	firsts := firstBytes(tags)
	p.firsts = &firsts
}

// Pending returns the characters held back because they may be the start
// of a tag or of a UTF-8 character, or separate two calls. A screen can
// show them as pending.
func (p *Parser) Pending() string {
	pending := p.held + string(p.partial[:p.partialLen])
	if p.sepLen > 0 && p.mode == inText {
		pending = string(p.call[:p.sepLen]) + pending
	}
	return pending
}

// Read returns where the bytes that the last Feed or Flush read stand, in
// order, adjacent spans of one region merged: the bytes held back before
// it, then the chunk's, less those held back now ([Parser.Pending]). A
// Flush reads whatever was held. Every byte of a reply is read exactly
// once, in the same region however the reply is cut into chunks, and
// spans end on whole UTF-8 characters. The slice is the parser's own,
// good until its next Feed, Flush or Reset.
func (p *Parser) Read() []Span { return p.read }

// Region returns the region the parser reads in now: where the next byte
// stands, unless it starts a tag that changes it.
func (p *Parser) Region() Region { return p.mode.region() }

// note records that n bytes were read in region r.
func (p *Parser) note(r Region, n int) {
	switch last := len(p.read) - 1; {
	case n == 0:
	case last >= 0 && p.read[last].Region == r:
		p.read[last].Len += n
	default:
		p.read = append(p.read, Span{r, n})
	}
}

// Feed parses the next chunk of the reply and calls emit for each event,
// in order. Events may be kept: the parser never reuses their memory.
func (p *Parser) Feed(chunk string, emit func(Event)) {
	if p.syn == nil {
		p.reset(syntaxes[Hermes], Options{})
	}
	p.read = p.read[:0]
	p.feed(chunk, emit)
}

func (p *Parser) feed(chunk string, emit func(Event)) {
	if p.plain(chunk) {
		p.chars(chunk, emit)
		return
	}
	s := chunk
	for len(s) > 0 {
		switch {
		case p.partialLen > 0:
			s = p.completeRune(s, emit)
		case p.held != "":
			s = p.extendTag(s, emit)
		case p.mode != inCall:
			s = p.scanText(s, emit)
		case p.syn.close != "":
			s = p.scanTagged(s, emit)
		case p.nest.depth == 0:
			s = p.scanPrelude(s, emit)
		default:
			s = p.scanBody(s, emit)
		}
	}
}

// plain reports whether chunk is text or thinking that needs no look: no
// tag can start in it, it ends on a whole character, and nothing is held.
// Most chunks are; Feed takes them in one step.
func (p *Parser) plain(chunk string) bool {
	if p.mode == inCall || p.held != "" || p.partialLen > 0 || p.bareObject || p.seps || chunk == "" || chunk[len(chunk)-1] >= utf8.RuneSelf {
		return false
	}
	return p.tagFirsts().index(chunk) < 0
}

// Flush ends the reply: whatever was held back comes out as characters,
// a call that was never finished is reported as invalid, and a call
// marker in thinking that never closed is reported.
func (p *Parser) Flush(emit func(Event)) {
	p.read = p.read[:0]
	held := p.held + string(p.partial[:p.partialLen])
	p.held, p.partialLen = "", 0
	p.flushSeps(emit)
	p.chars(held, emit)
	switch {
	case p.mode == inCall:
		p.endCall("", Unclosed, emit)
	case p.mode == inThinking && p.thoughtCall != "":
		emit(Event{Kind: CallInThinking, Text: p.thoughtCall})
	}
}

// tags returns the tags that change the current mode. Inside a call only
// its closing tag counts, and only outside strings (scanTagged checks).
func (p *Parser) tags() []string {
	switch p.mode {
	case inThinking:
		return p.syn.thinkTags
	case inCall:
		return p.syn.closeTags
	}
	return p.textTags
}

// scanText handles text and thinking: everything up to a possible tag is
// emitted as one slice of s.
func (p *Parser) scanText(s string, emit func(Event)) string {
	if p.seps && p.mode == inText {
		if s = p.readSeps(s, emit); s == "" {
			return ""
		}
	}
	if p.bareObject && p.mode == inText {
		if n := blankPrefix(s); n < len(s) && s[n] == '{' {
			p.chars(s[:n], emit)
			p.openCall("", "{", 1, emit)
			return s[n+1:]
		}
	}
	firsts := p.tagFirsts()
	for from := 0; ; {
		i := firsts.index(s[from:])
		if i < 0 {
			return p.charsUpToPartial(s, emit)
		}
		at := from + i
		tags := p.tags()
		if p.bareNames() && p.mode == inText && !callCanStart(p.leadBefore(s, at)) {
			tags = tags[:p.nameTags]
		}
		if tag, prefix := matchTag(s[at:], tags); tag != "" || prefix {
			return p.cut(s, at, tag, emit)
		}
		from = at + 1
	}
}

// tagFirsts returns the first bytes of the tags read in text or thinking.
func (p *Parser) tagFirsts() *byteSet {
	if p.mode == inThinking {
		return &p.syn.thinkFirsts
	}
	return p.firsts
}

// bareNames reports whether tools' bare names open calls, as in Pythonic.
func (p *Parser) bareNames() bool { return p.nameTags < len(p.textTags) }

// leadBefore returns the last reply-text byte before s[at] that is not a
// space or a tab.
func (p *Parser) leadBefore(s string, at int) byte {
	if i := lastNonBlank(s[:at]); i >= 0 {
		return s[i]
	}
	return p.lead
}

func lastNonBlank(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != ' ' && s[i] != '\t' {
			return i
		}
	}
	return -1
}

// callCanStart reports whether a bare call may follow lead: at the start
// of the reply or of a line, or inside a list of calls as Llama writes
// them, "[a(x=1), b(y=2)]". Elsewhere, "add(a=2, b=3)" is prose quoting a
// call (an error message's example, say), not a call.
func callCanStart(lead byte) bool {
	switch lead {
	case 0, '\n', '[', ',', ';':
		return true
	}
	return false
}

// scanTagged reads a call that ends at a closing tag; a closing tag
// inside a string does not end it.
func (p *Parser) scanTagged(s string, emit func(Event)) string {
	for i := p.nest.scan(s, &p.syn.stops); i < len(s); i += 1 + p.nest.scan(s[i+1:], &p.syn.stops) {
		if tag, prefix := matchTag(s[i:], p.syn.closeTags); tag != "" || prefix {
			return p.cut(s, i, tag, emit)
		}
	}
	return p.charsUpToPartial(s, emit)
}

// scanPrelude reads what stands between a call's marker and the bracket
// that opens its body: spaces, and in Pythonic the tool's name; in
// Mistral either a list's '[' or a name, argsTag and '{'. Anything else
// means that the marker opened no call: it ends, invalid, before the
// byte that broke it, which is read again as text.
func (p *Parser) scanPrelude(s string, emit func(Event)) string {
	x := p.syn
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case p.named && x.argsTag != "":
			if p.argsAt < len(x.argsTag) && c == x.argsTag[p.argsAt] {
				p.argsAt++
				continue
			}
			if p.argsAt == 0 && isIdent(c) {
				continue
			}
			if p.argsAt == len(x.argsTag) && c == '{' {
				p.nest.depth = 1
				p.prelude(s[:i+1], emit)
				return s[i+1:]
			}
		case c == x.body:
			p.nest.depth = 1
			p.prelude(s[:i+1], emit)
			return s[i+1:]
		case isIdent(c) && (x.lang == pythonLang || x.argsTag != ""):
			if !p.named && p.list {
				// A name, not a list, follows the marker: the name and
				// what follows it are Raw, the spaces before it are not.
				p.prelude(s[:i], emit)
				s, i, p.list = s[i:], 0, false
			}
			p.named = true
			continue
		case isSpace(c) && !p.named:
			continue
		}
		p.prelude(s[:i], emit)
		p.endCall("", x.noBody+": "+x.shape, emit)
		return s[i:]
	}
	p.prelude(s, emit)
	return ""
}

// prelude keeps the bytes before a call's body in its Raw; but a list's
// bracket, and what precedes it, belong to no element's Raw.
func (p *Parser) prelude(s string, emit func(Event)) {
	if !p.list {
		p.chars(s, emit)
		return
	}
	p.call = append(p.call, s...)
	p.rawAt = len(p.call)
	p.note(CallRegion, len(s))
}

// readSeps reads the separators and spaces after a call, up to the first
// byte that is neither, and returns the rest of s. Spaces alone are text.
func (p *Parser) readSeps(s string, emit func(Event)) string {
	n := 0
	for n < len(s) && (isSpace(s[n]) || strings.IndexByte(p.syn.seps, s[n]) >= 0) {
		n++
	}
	p.call = append(p.call, s[:n]...)
	p.sepLen = len(p.call)
	if n == len(s) {
		return ""
	}
	p.seps = false
	if !bytes.ContainsAny(p.call[:p.sepLen], p.syn.seps) {
		p.flushSeps(emit)
	}
	return s[n:]
}

// flushSeps emits as text the separators held after a call, since no call
// follows them.
func (p *Parser) flushSeps(emit func(Event)) {
	if p.sepLen == 0 || p.mode != inText {
		return
	}
	seps := string(p.call[:p.sepLen])
	p.sepLen, p.seps = 0, false
	p.chars(seps, emit)
}

// scanBody reads a call up to the bracket that balances its first one; a
// list's elements end at its top-level commas too.
func (p *Parser) scanBody(s string, emit func(Event)) string {
	list := p.list
	for i := p.nest.scan(s, &p.syn.stops); i < len(s); i += 1 + p.nest.scan(s[i+1:], &p.syn.stops) {
		c := s[i]
		switch depth := p.nest.bracket(c); {
		case depth == 0 && !list:
			p.chars(s[:i+1], emit)
			p.endCall("", "", emit)
		case depth == 0 || list && depth == 1 && c == ',':
			p.chars(s[:i], emit)
			p.endCall(s[i:i+1], "", emit)
			if c == ',' {
				p.openCall("", "", 1, emit)
				p.list = true
			}
		default:
			continue
		}
		return s[i+1:]
	}
	return p.charsUpToPartial(s, emit)
}

// extendTag decides a held tag prefix with the bytes that follow it.
func (p *Parser) extendTag(s string, emit func(Event)) string {
	for _, t := range p.tags() {
		if !strings.HasPrefix(t, p.held) {
			continue
		}
		rest := t[len(p.held):]
		switch n := min(len(rest), len(s)); {
		case s[:n] != rest[:n]:
			continue
		case n == len(rest):
			p.held = ""
			p.enter(t, emit)
			return s[n:]
		default:
			// All of s extends the prefix; the held string is a tag's own
			// prefix, so the longer one is too and no allocation is needed.
			p.held = t[:len(p.held)+n]
			return ""
		}
	}
	// Not a tag after all: its first byte is a character and the rest is
	// read again, since it may start a tag of its own ("<<think>").
	held := p.held
	p.held = ""
	p.chars(held[:1], emit)
	p.feed(held[1:], emit)
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
	if n := len(s); n > 0 && s[n-1] >= utf8.RuneSelf {
		s = p.holdPartial(s)
	}
	p.chars(s, emit)
	return ""
}

// holdPartial holds back a UTF-8 character cut at the end of s, and
// returns the rest.
func (p *Parser) holdPartial(s string) string {
	cut := len(s) - partialTail(s)
	p.partialLen = copy(p.partial[:], s[cut:])
	return s[:cut]
}

// cut emits s up to at, where tag stands, and acts on the tag; an empty
// tag means that s ends with the start of one, which is held back.
func (p *Parser) cut(s string, at int, tag string, emit func(Event)) string {
	p.chars(s[:at], emit)
	if tag == "" {
		p.held = s[at:]
		return ""
	}
	p.enter(tag, emit)
	return s[at+len(tag):]
}

// chars emits characters in the current mode.
func (p *Parser) chars(s string, emit func(Event)) {
	if s == "" {
		return
	}
	if p.mode == inText {
		p.flushSeps(emit)
	}
	p.note(p.mode.region(), len(s))
	switch p.mode {
	case inText:
		if p.bareNames() {
			if i := lastNonBlank(s); i >= 0 {
				p.lead = s[i]
			}
		}
		if p.bareObject && blankPrefix(s) < len(s) {
			p.bareObject = false
		}
		emit(Event{Kind: Text, Text: s})
	case inThinking:
		emit(Event{Kind: Thinking, Text: s})
	case inCall:
		p.call = append(p.call, s...)
		emit(Event{Kind: CallDelta, Text: s, Index: p.calls})
	}
}

// enter acts on a complete tag.
func (p *Parser) enter(tag string, emit func(Event)) {
	p.lead = 0
	switch {
	case tag == thinkOpen:
		p.flushSeps(emit)
		p.note(ThinkRegion, len(tag))
		p.mode = inThinking
		emit(Event{Kind: ThinkingOpen})
	case tag == thinkClose:
		p.note(p.mode.region(), len(tag)) // a stray one, in text, is text
		p.mode, p.thoughtCall = inText, ""
		emit(Event{Kind: ThinkingClose})
	case p.mode == inThinking:
		// A call marker while thinking is thinking, and noted.
		if p.thoughtCall == "" {
			p.thoughtCall = tag
		}
		p.note(ThinkRegion, len(tag))
		emit(Event{Kind: Thinking, Text: tag})
	case p.mode == inCall:
		p.endCall(tag, "", emit)
	case tag[0] == '[' && slices.Contains(p.textTags[p.nameTags:], tag):
		p.openCall("[", tag[1:], 2, emit)
		p.list = true
	case slices.Contains(p.textTags[p.nameTags:], tag):
		p.openCall("", tag, 1, emit)
	default:
		p.openCall(tag, "", 0, emit)
	}
}

// openCall starts the next call. lead is the part of it that is not Raw
// (its marker), after the separators held before it; raw starts Raw when
// the tag that opened the call is part of it (a bare call), and depth
// counts the brackets raw opens.
func (p *Parser) openCall(lead, raw string, depth int, emit func(Event)) {
	p.note(CallRegion, p.sepLen+len(lead))
	p.mode = inCall
	p.call = append(p.call[:p.sepLen], lead...)
	p.sepLen, p.seps = 0, false
	p.rawAt = len(p.call)
	p.named, p.argsAt, p.list = false, 0, p.syn.list
	p.nest = nest{depth: depth, lang: p.syn.lang}
	emit(Event{Kind: CallOpen, Index: p.calls})
	p.chars(raw, emit)
}

// endCall reports the open call, ended by closer (a closing tag, a list's
// ',' or ']', or nothing), and goes back to text. A call given a reason
// is invalid without being read.
func (p *Parser) endCall(closer, reason string, emit func(Event)) {
	p.note(CallRegion, len(closer))
	p.call = append(p.call, closer...)
	text := string(p.call)
	c := &Call{Text: text, Raw: text[p.rawAt : len(text)-len(closer)], Reason: reason}
	if reason == "" {
		c.Name, c.Arguments, c.Reason = p.syn.parse(c.Raw, p.schemas)
	}
	kind := CallParsed
	if c.Reason != "" {
		kind = CallInvalid
	}
	emit(Event{Kind: kind, Index: p.calls, Call: c})
	p.calls++
	p.mode = inText
	p.lead = 0
	p.bareObject = p.syn.bareObject
	p.call = p.call[:0]
	p.seps = p.syn.seps != ""
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

// byteSet is a set of bytes, for scans that stop at any of them. Its
// index is small enough to inline, and on the few bytes of a token a table
// lookup per byte beats strings.IndexAny and its call.
type byteSet [256]bool

// firstBytes returns the set of the first bytes of tags.
func firstBytes(tags []string) (set byteSet) {
	for _, t := range tags {
		set[t[0]] = true
	}
	return set
}

// index returns the index of the first byte of s in set, or -1.
func (set *byteSet) index(s string) int {
	for i := 0; i < len(s); i++ {
		if set[s[i]] {
			return i
		}
	}
	return -1
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
