package streamparser

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// regions feeds chunks and returns the region of each byte of the reply
// as Read reported it, one letter a byte (t, k, c), checking on the way
// that each Feed reads exactly the bytes it was given and those held
// before, less those it holds back, in spans that end on whole characters.
func regions(t *testing.T, opts Options, chunks []string) string {
	t.Helper()
	p := mustNew(opts)
	var all strings.Builder
	var input strings.Builder
	unread := ""
	take := func(what string) {
		t.Helper()
		n := 0
		for _, s := range p.Read() {
			if s.Len <= 0 {
				t.Fatalf("%s: span %+v is empty", what, s)
			}
			n += s.Len
			if end := input.Len() - len(unread) + n; end < input.Len() && !utf8.RuneStart(input.String()[end]) {
				t.Fatalf("%s: a span ends inside a UTF-8 character, at byte %d", what, end)
			}
			all.WriteString(strings.Repeat(string(s.Region)[:1], s.Len))
		}
		if held := p.Pending(); n != len(unread)-len(held) || !strings.HasSuffix(unread, held) {
			t.Fatalf("%s: read %d bytes of %q, holding back %q", what, n, unread, held)
		}
		unread = unread[n:]
	}
	for _, c := range chunks {
		input.WriteString(c)
		unread += c
		p.Feed(c, func(Event) {})
		take(fmt.Sprintf("chunk %q", c))
	}
	p.Flush(func(Event) {})
	take("Flush")
	if unread != "" {
		t.Fatalf("Flush left %q unread", unread)
	}
	return all.String()
}

// Every byte is read once, in the region it stands in however the reply
// is cut: a screen tints it the same whatever the chunks were.
func TestReadIsChunkProof(t *testing.T) {
	for _, c := range corpus() {
		if len(c.input) > 4096 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			want := regions(t, c.opts, []string{c.input})
			if len(want) != len(c.input) {
				t.Fatalf("read %d bytes of %d", len(want), len(c.input))
			}
			check := func(how string, chunks []string) {
				t.Helper()
				if got := regions(t, c.opts, chunks); got != want {
					t.Fatalf("%s: regions\n got %s\nwant %s\nof   %q", how, got, want, c.input)
				}
			}
			for i := 0; i <= len(c.input); i++ {
				check(fmt.Sprintf("split at %d", i), []string{c.input[:i], c.input[i:]})
			}
			check("1-byte chunks", splitEvery(c.input, 1))
			rng := rand.New(rand.NewPCG(2, uint64(len(c.input))))
			for range 10 {
				check("random chunks", splitRandom(rng, c.input))
			}
		})
	}
}

// The regions are where the parser reads text, thinking and calls: tags
// belong to the region they open or close, a marker written while
// thinking is thinking, and the separators between calls are the calls'.
func TestReadRegions(t *testing.T) {
	type part struct {
		r Region
		s string
	}
	tests := []struct {
		name  string
		opts  Options
		parts []part
	}{
		{"hermes", Options{}, []part{
			{TextRegion, "Sure. "},
			{ThinkRegion, "<think>I could call <tool_call> now 🙂</think>"},
			{TextRegion, "\n"},
			{CallRegion, "<tool_call>{\"name\": \"a\", \"arguments\": {\"s\": \"</tool_call>\"}}</tool_call>"},
			{TextRegion, " done"},
		}},
		{"starts in thinking", Options{InThinking: true}, []part{
			{ThinkRegion, "hm</think>"},
			{TextRegion, "ok"},
		}},
		{"pythonic list", Options{Dialect: Pythonic, Tools: testTools}, []part{
			{CallRegion, "[a(x=1), a(x=2)]"},
			{TextRegion, " then"},
		}},
		{"unclosed call", Options{}, []part{
			{TextRegion, "x"},
			{CallRegion, "<tool_call>{\"name\""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var input, want strings.Builder
			for _, p := range tc.parts {
				input.WriteString(p.s)
				want.WriteString(strings.Repeat(string(p.r)[:1], len(p.s)))
			}
			for _, n := range []int{1, 3, len(input.String())} {
				if got := regions(t, tc.opts, splitEvery(input.String(), n)); got != want.String() {
					t.Errorf("%d-byte chunks: regions\n got %s\nwant %s\nof   %q", n, got, want.String(), input.String())
				}
			}
		})
	}
}

// Read's spans merge: a reply in one region reads as one span per Feed.
func TestReadMergesSpans(t *testing.T) {
	p := mustNew(Options{})
	p.Feed("plain text, then <b>bold</b>", func(Event) {})
	if got, want := p.Read(), []Span{{TextRegion, 28}}; !slices.Equal(got, want) {
		t.Errorf("Read() = %v, want %v", got, want)
	}
}

// Region is where the parser reads now: what a chunk held back whole
// would stand in.
func TestRegion(t *testing.T) {
	p := mustNew(Options{InThinking: true})
	for _, step := range []struct {
		chunk string
		want  Region
	}{{"hm", ThinkRegion}, {"</think>ok <tool", TextRegion}, {"_call>{", CallRegion}, {"}</tool_call>", TextRegion}} {
		p.Feed(step.chunk, func(Event) {})
		if got := p.Region(); got != step.want {
			t.Errorf("after %q: Region() = %q, want %q", step.chunk, got, step.want)
		}
	}
}
