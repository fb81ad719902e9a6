package streamparser

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// ev is an Event in a form tests can compare and print.
type ev struct {
	Kind    Kind
	Text    string
	Index   int
	Name    string
	Args    string
	Raw     string
	Written string // Call.Text
	Reason  string // for CallInvalid: a part of the reason
}

func (e ev) String() string {
	return fmt.Sprintf("%v[%d]{text=%q name=%q args=%s raw=%q written=%q reason=%q}",
		e.Kind, e.Index, e.Text, e.Name, e.Args, e.Raw, e.Written, e.Reason)
}

func txt(s string) ev   { return ev{Kind: Text, Text: s} }
func think(s string) ev { return ev{Kind: Thinking, Text: s} }

// thought is a whole <think> block.
func thought(s string) []ev {
	return []ev{{Kind: ThinkingOpen}, think(s), {Kind: ThinkingClose}}
}
func open(i int) ev { return ev{Kind: CallOpen, Index: i} }
func delta(i int, s string) ev {
	return ev{Kind: CallDelta, Index: i, Text: s}
}

// call is the events of one well-formed call, deltas merged: written is
// the call's Text, raw its Raw.
func call(i int, name, args, raw, written string) []ev {
	return []ev{open(i), delta(i, raw), {Kind: CallParsed, Index: i, Name: name, Args: args, Raw: raw, Written: written}}
}

// bad is the events of one invalid call whose reason mentions reason.
func bad(i int, raw, written, reason string) []ev {
	evs := []ev{open(i), delta(i, raw), {Kind: CallInvalid, Index: i, Raw: raw, Written: written, Reason: reason}}
	if raw == "" {
		return slices.Delete(evs, 1, 2)
	}
	return evs
}

func seq(parts ...any) []ev {
	var out []ev
	for _, p := range parts {
		switch p := p.(type) {
		case ev:
			out = append(out, p)
		case []ev:
			out = append(out, p...)
		}
	}
	return out
}

// run feeds chunks to a new parser and returns its events, unmerged.
func run(opts Options, chunks []string) []ev {
	p := mustNew(opts)
	var out []ev
	emit := func(e Event) {
		x := ev{Kind: e.Kind, Text: e.Text, Index: e.Index}
		if e.Call != nil {
			c := e.Call
			x.Name, x.Args, x.Raw, x.Written, x.Reason = c.Name, string(c.Arguments), c.Raw, c.Text, c.Reason
		}
		out = append(out, x)
	}
	for _, c := range chunks {
		p.Feed(c, emit)
	}
	p.Flush(emit)
	return out
}

// merge joins adjacent deltas of the same kind (and call), so that event
// lists from different chunkings compare equal.
func merge(evs []ev) []ev {
	var out []ev
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out[len(out)-1].Text = text.String()
			text.Reset()
		}
	}
	for _, e := range evs {
		isDelta := e.Kind == Text || e.Kind == Thinking || e.Kind == CallDelta
		if n := len(out); n > 0 && isDelta && out[n-1].Kind == e.Kind && out[n-1].Index == e.Index {
			if text.Len() == 0 {
				text.WriteString(out[n-1].Text)
			}
			text.WriteString(e.Text)
			continue
		}
		flush()
		out = append(out, e)
	}
	flush()
	return out
}

// rebuild writes the input back from its events.
func rebuild(evs []ev) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Kind {
		case Text, Thinking:
			b.WriteString(e.Text)
		case ThinkingOpen:
			b.WriteString(thinkOpen)
		case ThinkingClose:
			b.WriteString(thinkClose)
		case CallParsed, CallInvalid:
			b.WriteString(e.Written)
		}
	}
	return b.String()
}

type parserCase struct {
	name  string
	opts  Options
	input string
	want  []ev // nil: only the properties are checked
}

// corpus is every dialect's cases, each named after its dialect.
func corpus() []parserCase {
	var all []parserCase
	for _, part := range []struct {
		d     Dialect
		cases []parserCase
	}{
		{Hermes, hermesCases()}, {Marker, markerCases()}, {Pythonic, pythonicCases()},
		{Llama3, llama3Cases()}, {Mistral, mistralCases()}, {Fenced, fencedCases()},
		{Qwen3Coder, qwen3coderCases()},
	} {
		for _, c := range part.cases {
			c.name = part.d.String() + "/" + c.name
			c.opts.Dialect = part.d
			if part.d == Pythonic {
				c.opts.Tools = testTools
			}
			if part.d == Qwen3Coder && c.opts.Schemas == nil {
				c.opts.Schemas = testSchemas
			}
			all = append(all, c)
		}
	}
	return all
}

// testTools are the tools that Pythonic cases may call bare.
var testTools = []string{"get_weather", "send_mail", "a", "big"}

// testSchemas are the parameter schemas that Qwen3Coder cases type values by.
var testSchemas = map[string]json.RawMessage{
	"get_weather": json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
		"hourly": {"type": "boolean"}, "hours": {"type": "array"}, "opts": {"type": "object"}, "ratio": {"type": ["number", "null"]},
		"note": {"type": ["string", "null"]}, "any": {}}}`),
	"a":   json.RawMessage(`{"type": "object", "properties": {"x": {"type": "number"}, "list": {"type": "array"}}}`),
	"big": json.RawMessage(`{"properties": {"v": {"type": "string"}}}`),
}

func TestParseCorpus(t *testing.T) {
	for _, c := range corpus() {
		if c.want == nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			got := merge(run(c.opts, []string{c.input}))
			assertEvents(t, got, c.want)
		})
	}
}

func assertEvents(t *testing.T, got, want []ev) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d:\n got: %v\nwant: %v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if w.Kind == CallInvalid {
			if !strings.Contains(g.Reason, w.Reason) {
				t.Errorf("event %d: reason %q does not mention %q", i, g.Reason, w.Reason)
			}
			g.Reason, w.Reason = "", ""
		}
		if g != w {
			t.Errorf("event %d:\n got: %v\nwant: %v", i, g, w)
		}
	}
}

// TestChunkProof checks, for every case and also for every case's input
// read in every other dialect, that every way of cutting the input gives
// the same events as the whole: at every split point, byte by byte, and
// at random. It checks the events' properties on the way.
func TestChunkProof(t *testing.T) {
	for _, c := range corpus() {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range Dialects() {
				opts := c.opts
				opts.Dialect, opts.Tools, opts.Schemas = d, testTools, testSchemas
				if d != c.opts.Dialect && len(c.input) > 4096 {
					continue
				}
				checkChunkings(t, opts, c.input)
			}
		})
	}
}

func checkChunkings(t *testing.T, opts Options, input string) {
	t.Helper()
	whole := run(opts, []string{input})
	checkProperties(t, input, whole)
	want := merge(whole)
	check := func(how string, chunks []string) {
		t.Helper()
		evs := run(opts, chunks)
		checkProperties(t, input, evs)
		if got := merge(evs); !slices.Equal(got, want) {
			t.Fatalf("%v, %s: events differ from the whole input's\n got: %v\nwant: %v", opts.Dialect, how, got, want)
		}
	}
	if len(input) <= 4096 {
		for i := 0; i <= len(input); i++ {
			check(fmt.Sprintf("split at %d", i), []string{input[:i], input[i:]})
		}
	}
	check("1-byte chunks", splitEvery(input, 1))
	rng := rand.New(rand.NewPCG(1, uint64(len(input))))
	tries := 20
	if len(input) > 4096 {
		tries = 2
	}
	for range tries {
		check("random chunks", splitRandom(rng, input))
	}
}

// checkProperties checks what holds for the events of any input: they
// rebuild it, they split no UTF-8 character, calls open one at a time
// with consecutive indexes and end once, each call's deltas are its Raw,
// its Raw is inside its Text, and a parsed call has a name and a JSON
// object of arguments.
func checkProperties(t *testing.T, input string, evs []ev) {
	t.Helper()
	if got := rebuild(evs); got != input {
		t.Fatalf("the events do not rebuild the input\n got: %q\nwant: %q\nevents: %v", got, input, evs)
	}
	validInput := utf8.ValidString(input)
	calls, open := 0, false
	var raw strings.Builder
	for i, e := range evs {
		if validInput && !utf8.ValidString(e.Text) {
			t.Fatalf("event %v splits a UTF-8 character", e)
		}
		fail := func(what string) { t.Helper(); t.Fatalf("%s: %v in %v", what, e, evs) }
		switch e.Kind {
		case Text, Thinking, CallDelta:
			if e.Text == "" {
				fail("an empty delta")
			}
		}
		switch e.Kind {
		case CallOpen:
			if open || e.Index != calls {
				fail("a call opens out of turn")
			}
			open = true
			raw.Reset()
		case CallDelta:
			if !open || e.Index != calls {
				fail("a delta outside its call")
			}
			raw.WriteString(e.Text)
		case CallParsed, CallInvalid:
			switch {
			case !open || e.Index != calls:
				fail("a call ends out of turn")
			case e.Raw != raw.String():
				fail("Raw is not what the deltas carried")
			case !strings.Contains(e.Written, e.Raw):
				fail("Raw is not inside Text")
			case e.Kind == CallInvalid && (e.Reason == "" || e.Name != "" || e.Args != ""):
				fail("an invalid call without a reason, or with a name")
			case e.Kind == CallParsed && (e.Reason != "" || e.Name == "" || !json.Valid([]byte(e.Args)) || e.Args[0] != '{'):
				fail("a parsed call without a name and an arguments object")
			}
			open = false
			calls++
		case CallInThinking:
			if i != len(evs)-1 || e.Text == "" {
				fail("a call in thinking reported before the end, or without its marker")
			}
		default:
			if open {
				fail("text inside a call")
			}
		}
	}
	if open {
		t.Fatalf("a call is left open after Flush: %v", evs)
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func splitRandom(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + rng.IntN(min(len(s), 16))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// TestEveryPairOfSplits cuts a reply with a bit of everything into three
// chunks at every pair of points, in each dialect.
func TestEveryPairOfSplits(t *testing.T) {
	inputs := map[Dialect]string{
		Hermes:     "a<think>x<y</think><tool_call>{\"name\":\"n\",\"arguments\":{\"s\":\"</tool_call>🙂\"}}</tool_call><b",
		Marker:     "a<think>x</think>>>>CALL_FUNCTION<<< {\"name\":\"n\",\"arguments\":{\"s\":\"}🙂\"}}>>b",
		Pythonic:   "<think>x</think>a(s='),🙂') <<function>>b(n=[1]) xa(",
		Llama3:     "<think>x</think> {\"name\":\"n\",\"parameters\":{\"s\":\"}🙂\"}}; {\"name\":\"m\"}{",
		Mistral:    "a[TOOL_CALLS] [{\"name\":\"n\",\"arguments\":{\"s\":\"],🙂\"}}, {}][b",
		Fenced:     "<think>x</think>```json\n{\"name\":\"n\",\"arguments\":{\"s\":\"```🙂\"}}\n``` ``",
		Qwen3Coder: "<think>x<tool_call></think><tool_call>\n<function=a>\n<parameter=x>\n[1]🙂\n</parameter>\n</function>\n</tool_call><",
	}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			opts := Options{Dialect: d, Tools: testTools, Schemas: testSchemas}
			input := inputs[d]
			whole := merge(run(opts, []string{input}))
			for i := 0; i <= len(input); i++ {
				for j := i; j <= len(input); j++ {
					got := merge(run(opts, []string{input[:i], input[i:j], input[j:]}))
					if !slices.Equal(got, whole) {
						t.Fatalf("split at %d and %d:\n got: %v\nwant: %v", i, j, got, whole)
					}
				}
			}
		})
	}
}

// A call marker in a thinking block that never closes is reported at the
// end, in every dialect; in one that closes, it is only thinking.
func TestCallInThinking(t *testing.T) {
	for _, d := range Dialects() {
		opts := Options{Dialect: d, Tools: testTools}
		marker := d.Marker()
		for input, want := range map[string]bool{
			"<think>I will call " + marker + " now":                   true,
			"<think>" + marker + "x" + marker + "</think>" + "answer": false,
			"<think>no call here":                                     false,
			"<think>" + marker + "</think>ok<think>no call here":      false,
			"plan " + marker[:2]:                                      false,
		} {
			for _, inThinking := range []bool{false, true} {
				opts.InThinking = inThinking
				evs := merge(run(opts, splitEvery(input, 3)))
				last := evs[len(evs)-1]
				reported := last.Kind == CallInThinking
				if reported != want {
					t.Errorf("%s, in thinking %v: %q ends with %v, want a call in thinking: %v", d, inThinking, input, last, want)
				}
				if reported && !strings.HasPrefix(marker, last.Text) {
					t.Errorf("%s: %q reports the marker %q", d, input, last.Text)
				}
			}
		}
	}
}

func TestPending(t *testing.T) {
	tests := []struct {
		opts    Options
		chunks  []string
		pending []string // after each chunk
	}{
		{Options{}, []string{"Hi <tool_", "call>", "\xf0\x9f"}, []string{"<tool_", "", "\xf0\x9f"}},
		{Options{Dialect: Marker}, []string{"Hi >>>CALL", "_FUNCTION<<<"}, []string{">>>CALL", ""}},
		{Options{Dialect: Pythonic, Tools: []string{"get_weather"}}, []string{"Hi\nget_wea", "ther(", "x\nmy_get_wea", "\nsay get_wea"}, []string{"get_wea", "", "", ""}},
		{Options{Dialect: Fenced}, []string{"```js", "on\n{}\n``", "`"}, []string{"```js", "``", ""}},
	}
	for _, tt := range tests {
		p := mustNew(tt.opts)
		for i, c := range tt.chunks {
			p.Feed(c, func(Event) {})
			if got := p.Pending(); got != tt.pending[i] {
				t.Errorf("%v: after %q, Pending() = %q, want %q", tt.opts.Dialect, tt.chunks[:i+1], got, tt.pending[i])
			}
		}
	}
}

func TestResetRestartsIndexesAndDialect(t *testing.T) {
	p := mustNew(Options{})
	var last Event
	emit := func(e Event) { last = e }
	p.Feed(`<tool_call>{"name":"a"}</tool_call>`, emit)
	mustReset(t, p, Options{Dialect: Marker})
	p.Feed(`>>>CALL_FUNCTION<<<{"name":"b"}`, emit)
	if last.Kind != CallParsed || last.Index != 0 || last.Call.Name != "b" {
		t.Fatalf("after Reset got %v %d %+v, want call 0 named b", last.Kind, last.Index, last.Call)
	}
}

func TestZeroParserIsHermes(t *testing.T) {
	var p Parser
	var got []Event
	p.Feed(`<think>x</think><tool_call>{"name":"a"}</tool_call>`, func(e Event) { got = append(got, e) })
	if last := got[len(got)-1]; last.Kind != CallParsed || last.Call.Name != "a" {
		t.Fatalf("the zero Parser did not read a Hermes call: %v", got)
	}
}

// TestBigArguments checks that a 256 KiB argument, fed in 4-byte chunks,
// comes out whole in every dialect.
func TestBigArguments(t *testing.T) {
	value := strings.Repeat("x", 256*1024)
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			input := bigCall(d, value)
			evs := merge(run(Options{Dialect: d, Tools: testTools}, splitEvery(input, 4)))
			last := evs[len(evs)-1]
			if last.Kind != CallParsed || last.Args != `{"v":"`+value+`"}` || last.Written != input {
				t.Fatalf("the 256 KiB call was not parsed whole: %v %q", last.Kind, excerpt(last.Reason))
			}
		})
	}
}

// bigCall writes a call of the tool "big" with one string argument v, in
// dialect d.
func bigCall(d Dialect, v string) string {
	obj := `{"name": "big", "arguments": {"v": "` + v + `"}}`
	switch d {
	case Marker:
		return ">>>CALL_FUNCTION<<<" + obj
	case Pythonic:
		return `big(v="` + v + `")`
	case Llama3:
		return `{"name": "big", "parameters": {"v": "` + v + `"}}`
	case Mistral:
		return "[TOOL_CALLS][" + obj + "]"
	case Fenced:
		return "```json\n" + obj + "\n```"
	case Qwen3Coder:
		return "<tool_call>\n<function=big>\n<parameter=v>\n" + v + "\n</parameter>\n</function>\n</tool_call>"
	}
	return "<tool_call>\n" + obj + "\n</tool_call>"
}

func TestPlainTextDoesNotAllocate(t *testing.T) {
	chunks := []string{"The answer", " is", " forty", "-two", " (or", " get_weather", "'s", " {guess})", ".\n"}
	for _, d := range Dialects() {
		t.Run(d.String(), func(t *testing.T) {
			p := mustNew(Options{Dialect: d, Tools: testTools})
			emit := func(Event) {}
			allocs := testing.AllocsPerRun(100, func() {
				for _, c := range chunks {
					p.Feed(c, emit)
				}
			})
			if allocs != 0 {
				t.Fatalf("plain text allocates %.1f times per reply, want 0", allocs)
			}
		})
	}
}

func TestParseDialect(t *testing.T) {
	for _, d := range Dialects() {
		for _, name := range []string{d.String(), strings.ToUpper(d.String())} {
			if got, err := ParseDialect(name); got != d || err != nil {
				t.Errorf("ParseDialect(%q) = %v, %v; want %v", name, got, err, d)
			}
		}
	}
	_, err := ParseDialect("qwen")
	if got, err := ParseDialect("Gorilla"); got != Pythonic || err != nil {
		t.Errorf("ParseDialect(Gorilla) = %v, %v; want pythonic", got, err)
	}
	if err == nil || !strings.Contains(err.Error(), "hermes, marker, pythonic, llama3, mistral, fenced, qwen3coder") {
		t.Fatalf("ParseDialect(qwen) error %v does not list the dialects", err)
	}
	if got := Dialect(42).String(); got != "Dialect(42)" {
		t.Errorf("Dialect(42).String() = %q", got)
	}
}

// mustNew is New for the tests' options, which name known dialects.
func mustNew(opts Options) *Parser {
	p, err := New(opts)
	if err != nil {
		panic(err)
	}
	return p
}

func mustReset(tb testing.TB, p *Parser, opts Options) {
	if err := p.Reset(opts); err != nil {
		tb.Fatal(err)
	}
}

// A dialect the caller made up is an error, not a panic, and a parser
// that was asked to change to one reads as before.
func TestUnknownDialectIsAnError(t *testing.T) {
	unknown := Dialect(len(Dialects()))
	if p, err := New(Options{Dialect: unknown}); err == nil || p != nil {
		t.Fatalf("New with %v = %v, %v; want an error", unknown, p, err)
	} else if !strings.Contains(err.Error(), "unknown Dialect(") || !strings.Contains(err.Error(), "hermes") {
		t.Errorf("the error %q does not name the dialect and the known ones", err)
	}
	p := mustNew(Options{Dialect: Marker})
	if err := p.Reset(Options{Dialect: unknown}); err == nil {
		t.Fatalf("Reset with %v succeeded", unknown)
	}
	var calls []string
	p.Feed(`>>>CALL_FUNCTION<<<{"name":"b"}`, func(e Event) {
		if e.Kind == CallParsed {
			calls = append(calls, e.Call.Name)
		}
	})
	if len(calls) != 1 || calls[0] != "b" {
		t.Errorf("after a refused Reset the parser read calls %v, want Marker's call b", calls)
	}
}
