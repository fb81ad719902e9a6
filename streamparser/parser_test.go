package streamparser

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// ev is an Event in a form tests can compare and print.
type ev struct {
	Kind   Kind
	Text   string
	Index  int
	Name   string
	Args   string
	Raw    string
	Reason string // for CallInvalid: a part of the reason
}

func (e ev) String() string {
	return fmt.Sprintf("%v[%d]{text=%q name=%q args=%s raw=%q reason=%q}", e.Kind, e.Index, e.Text, e.Name, e.Args, e.Raw, e.Reason)
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
func parsed(i int, name, args, raw string) ev {
	return ev{Kind: CallParsed, Index: i, Name: name, Args: args, Raw: raw}
}
func invalid(i int, raw, reason string) ev {
	return ev{Kind: CallInvalid, Index: i, Raw: raw, Reason: reason}
}

// call is the events of one well-formed call, deltas merged.
func call(i int, name, args, raw string) []ev {
	return []ev{open(i), delta(i, raw), parsed(i, name, args, raw)}
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
	p := New(opts)
	var out []ev
	emit := func(e Event) {
		x := ev{Kind: e.Kind, Text: e.Text, Index: e.Index}
		if e.Call != nil {
			x.Name, x.Args, x.Raw, x.Reason = e.Call.Name, string(e.Call.Arguments), e.Call.Raw, e.Call.Reason
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

type parserCase struct {
	name  string
	opts  Options
	input string
	want  []ev // nil: only the properties are checked
}

var bigArg = strings.Repeat("ab\"c\\ 🙂</tool_call>", 256*1024/25)

func corpus() []parserCase {
	sendRaw := "\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"john@example.com\", \"subject\": \"Standup\"}}\n"
	sendArgs := `{"to":"john@example.com","subject":"Standup"}`
	return []parserCase{
		{name: "plain", input: "Hello, world.", want: seq(txt("Hello, world."))},
		{name: "empty", input: "", want: nil},
		{name: "less-than in text", input: "if a < b and b<c then <3", want: seq(txt("if a < b and b<c then <3"))},
		{name: "less-than in thinking", input: "<think>a<b, <thin</think>ok", want: seq(thought("a<b, <thin"), txt("ok"))},
		{name: "almost a tag", input: "<tool" + "x> is not a tag", want: seq(txt("<toolx> is not a tag"))},
		{name: "partial tag at end", input: "see <tool_ca", want: seq(txt("see <tool_ca"))},
		{name: "double less-than", input: "<<think>x</think>", want: seq(txt("<"), thought("x"))},
		{name: "closing think in text", input: "a </think> b", want: seq(txt("a </think> b"))},
		{
			name:  "thinking then call then text",
			input: "<think>\nI should email John.\n</think>\n\n<tool_call>" + sendRaw + "</tool_call>\nDone.",
			want: seq(thought("\nI should email John.\n"), txt("\n\n"),
				call(0, "send_mail", sendArgs, sendRaw), txt("\nDone.")),
		},
		{
			name:  "prompt opened thinking",
			opts:  Options{InThinking: true},
			input: "plan</think>answer",
			want:  seq(think("plan"), ev{Kind: ThinkingClose}, txt("answer")),
		},
		{
			name:  "tool call inside thinking is thinking",
			input: "<think>maybe <tool_call>{\"name\":\"x\"}</tool_call></think>no",
			want:  seq(thought("maybe <tool_call>{\"name\":\"x\"}</tool_call>"), txt("no")),
		},
		{
			name:  "closing tag inside a JSON string",
			input: `<tool_call>{"name": "note", "arguments": {"text": "write </tool_call> \"quoted\" \\"}}</tool_call>`,
			want: seq(call(0, "note", `{"text":"write </tool_call> \"quoted\" \\"}`,
				`{"name": "note", "arguments": {"text": "write </tool_call> \"quoted\" \\"}}`)),
		},
		{
			name:  "empty object and array arguments",
			input: `<tool_call>{"name":"a","arguments":{}}</tool_call><tool_call>{"name":"b","arguments":{"xs":[],"o":{}}}</tool_call>`,
			want: seq(call(0, "a", `{}`, `{"name":"a","arguments":{}}`),
				call(1, "b", `{"xs":[],"o":{}}`, `{"name":"b","arguments":{"xs":[],"o":{}}}`)),
		},
		{
			name:  "three calls with text between",
			input: "<tool_call>{\"name\":\"a\"}</tool_call> and <tool_call>{\"name\":\"ab\",\"arguments\":{\"n\":1}}</tool_call>\n<tool_call>{\"name\":\"abc\"}</tool_call>",
			want: seq(call(0, "a", `{}`, `{"name":"a"}`), txt(" and "),
				call(1, "ab", `{"n":1}`, `{"name":"ab","arguments":{"n":1}}`), txt("\n"),
				call(2, "abc", `{}`, `{"name":"abc"}`)),
		},
		{
			name:  "whitespace around tags",
			input: "  \n<tool_call>\n\n  {\"name\" : \"a\" , \"arguments\" : { \"k\" : \"v\" } }  \n\n</tool_call>  \n",
			want:  seq(txt("  \n"), call(0, "a", `{"k":"v"}`, "\n\n  {\"name\" : \"a\" , \"arguments\" : { \"k\" : \"v\" } }  \n\n"), txt("  \n")),
		},
		{
			name:  "arguments as a JSON string",
			input: `<tool_call>{"name":"a","arguments":"{\"k\": 1}"}</tool_call>`,
			want:  seq(call(0, "a", `{"k":1}`, `{"name":"a","arguments":"{\"k\": 1}"}`)),
		},
		{
			name:  "parameters instead of arguments",
			input: `<tool_call>{"name":"a","parameters":{"k":1}}</tool_call>`,
			want:  seq(call(0, "a", `{"k":1}`, `{"name":"a","parameters":{"k":1}}`)),
		},
		{
			name:  "invalid JSON",
			input: `<tool_call>{"name": "a", "arguments": {"k": }}</tool_call>then`,
			want: seq(open(0), delta(0, `{"name": "a", "arguments": {"k": }}`),
				invalid(0, `{"name": "a", "arguments": {"k": }}`, "not valid JSON"), txt("then")),
		},
		{
			name:  "JSON array",
			input: `<tool_call>[{"name":"a"}]</tool_call>`,
			want:  seq(open(0), delta(0, `[{"name":"a"}]`), invalid(0, `[{"name":"a"}]`, "JSON array")),
		},
		{
			name:  "missing name",
			input: `<tool_call>{"arguments":{}}</tool_call>`,
			want:  seq(open(0), delta(0, `{"arguments":{}}`), invalid(0, `{"arguments":{}}`, `no "name"`)),
		},
		{
			name:  "arguments not an object",
			input: `<tool_call>{"name":"a","arguments":[1]}</tool_call>`,
			want:  seq(open(0), delta(0, `{"name":"a","arguments":[1]}`), invalid(0, `{"name":"a","arguments":[1]}`, `"arguments" must be a JSON object`)),
		},
		{
			name:  "empty call",
			input: "<tool_call>\n</tool_call>",
			want:  seq(open(0), delta(0, "\n"), invalid(0, "\n", "empty")),
		},
		{
			name:  "not JSON at all",
			input: "<tool_call>send_mail(to='x')</tool_call>",
			want:  seq(open(0), delta(0, "send_mail(to='x')"), invalid(0, "send_mail(to='x')", "not hold a JSON object")),
		},
		{
			name:  "unterminated call",
			input: `x<tool_call>{"name":"a","arguments":{"k":"</tool_`,
			want: seq(txt("x"), open(0), delta(0, `{"name":"a","arguments":{"k":"</tool_`),
				invalid(0, `{"name":"a","arguments":{"k":"</tool_`, "never closed")),
		},
		{
			name:  "unterminated call ending in a partial close tag",
			input: `<tool_call>{"name":"a"}</tool_c`,
			want:  seq(open(0), delta(0, `{"name":"a"}</tool_c`), invalid(0, `{"name":"a"}</tool_c`, "never closed")),
		},
		{name: "unterminated thinking", input: "<think>still going", want: seq(ev{Kind: ThinkingOpen}, think("still going"))},
		{name: "emoji CJK Arabic", input: "<think>🙂 思考 تفكير</think>答え 🎉 مرحبا", want: seq(thought("🙂 思考 تفكير"), txt("答え 🎉 مرحبا"))},
		{
			name:  "multibyte in arguments",
			input: `<tool_call>{"name":"a","arguments":{"t":"日本語 🙂 عربى"}}</tool_call>`,
			want:  seq(call(0, "a", `{"t":"日本語 🙂 عربى"}`, `{"name":"a","arguments":{"t":"日本語 🙂 عربى"}}`)),
		},
		{name: "invalid UTF-8 passes through", input: "a\xff\xfeb\xe6\x97", want: seq(txt("a\xff\xfeb\xe6\x97"))},
		{name: "closing tag inside a string in a big argument", input: `<tool_call>{"name":"big","arguments":{"s":"` + strings.ReplaceAll(strings.ReplaceAll(bigArg, `\`, `\\`), `"`, `\"`) + `"}}</tool_call>`},
	}
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

// TestChunkProof checks that every way of cutting an input gives the same
// events: at every split point, byte by byte, and at random.
func TestChunkProof(t *testing.T) {
	for _, c := range corpus() {
		t.Run(c.name, func(t *testing.T) {
			whole := merge(run(c.opts, []string{c.input}))
			check := func(how string, chunks []string) {
				t.Helper()
				evs := run(c.opts, chunks)
				assertWholeCharacters(t, c.input, evs)
				if got := merge(evs); !equal(got, whole) {
					t.Fatalf("%s: events differ from the whole input's\n got: %v\nwant: %v", how, got, whole)
				}
			}
			if len(c.input) <= 4096 {
				for i := 0; i <= len(c.input); i++ {
					check(fmt.Sprintf("split at %d", i), []string{c.input[:i], c.input[i:]})
				}
			}
			check("1-byte chunks", splitEvery(c.input, 1))
			rng := rand.New(rand.NewPCG(1, uint64(len(c.input))))
			tries := 20
			if len(c.input) > 4096 {
				tries = 2
			}
			for range tries {
				check("random chunks", splitRandom(rng, c.input))
			}
		})
	}
}

// TestLossless checks that the events hold every byte of the input.
func TestLossless(t *testing.T) {
	for _, c := range corpus() {
		t.Run(c.name, func(t *testing.T) {
			got := rebuild(run(c.opts, []string{c.input}))
			if got != c.input {
				t.Fatalf("rebuilt input differs\n got: %q\nwant: %q", got, c.input)
			}
		})
	}
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
			b.WriteString(callOpen + e.Raw)
			if e.Reason != Unclosed {
				b.WriteString(callClose)
			}
		}
	}
	return b.String()
}

func assertWholeCharacters(t *testing.T, input string, evs []ev) {
	t.Helper()
	if !utf8.ValidString(input) {
		return
	}
	for _, e := range evs {
		if !utf8.ValidString(e.Text) {
			t.Fatalf("event %v splits a UTF-8 character", e)
		}
	}
}

func equal(a, b []ev) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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

func TestEveryPairOfSplits(t *testing.T) {
	input := "a<think>x<y</think><tool_call>{\"name\":\"n\",\"arguments\":{\"s\":\"</tool_call>🙂\"}}</tool_call><b"
	whole := merge(run(Options{}, []string{input}))
	for i := 0; i <= len(input); i++ {
		for j := i; j <= len(input); j++ {
			got := merge(run(Options{}, []string{input[:i], input[i:j], input[j:]}))
			if !equal(got, whole) {
				t.Fatalf("split at %d and %d:\n got: %v\nwant: %v", i, j, got, whole)
			}
		}
	}
}

func TestPending(t *testing.T) {
	p := New(Options{})
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	p.Feed("Hi <tool_", emit)
	if got := p.Pending(); got != "<tool_" {
		t.Fatalf("Pending() = %q, want %q", got, "<tool_")
	}
	p.Feed("call>", emit)
	if got := p.Pending(); got != "" {
		t.Fatalf("Pending() after the tag = %q, want nothing", got)
	}
	p.Feed("\xf0\x9f", emit)
	if got := p.Pending(); got != "\xf0\x9f" {
		t.Fatalf("Pending() = %q, want the cut character", got)
	}
}

func TestIndexesRestartAfterReset(t *testing.T) {
	p := New(Options{})
	var last Event
	emit := func(e Event) { last = e }
	p.Feed(`<tool_call>{"name":"a"}</tool_call>`, emit)
	p.Reset(Options{})
	p.Feed(`<tool_call>{"name":"b"}</tool_call>`, emit)
	if last.Kind != CallParsed || last.Index != 0 || last.Call.Name != "b" {
		t.Fatalf("after Reset got %v %d %+v, want call 0 named b", last.Kind, last.Index, last.Call)
	}
}

func TestBigArgument(t *testing.T) {
	value := strings.Repeat("x", 256*1024)
	input := `<tool_call>{"name":"big","arguments":{"v":"` + value + `"}}</tool_call>`
	evs := merge(run(Options{}, splitEvery(input, 4)))
	last := evs[len(evs)-1]
	if last.Kind != CallParsed || last.Args != `{"v":"`+value+`"}` {
		t.Fatalf("the 256 KiB call was not parsed whole: %v", last.Kind)
	}
}

func TestPlainTextDoesNotAllocate(t *testing.T) {
	p := New(Options{})
	emit := func(Event) {}
	chunks := []string{"The answer", " is", " forty", "-two", ", as", " expected", ".\n"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, c := range chunks {
			p.Feed(c, emit)
		}
	})
	if allocs != 0 {
		t.Fatalf("plain text allocates %.1f times per reply, want 0", allocs)
	}
}
