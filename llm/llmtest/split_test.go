package llmtest

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world!", []string{"Hello", ",", " world", "!"}},
		{"<think>\nHmm.\n</think>\n\n", []string{"<think>", "\n", "Hmm", ".", "\n", "</think>", "\n\n"}},
		{"<tool_call>\n{\"name\": \"f\"}\n</tool_call>", []string{"<tool_call>", "\n", "{", "\"", "name", "\"", ":", " \"", "f", "\"", "}", "\n", "</tool_call>"}},
		{"Hi <tool_call>", []string{"Hi", " <tool_call>"}},
		{"<|im_start|>user", []string{"<|im_start|>", "user"}},
		{"a < b", []string{"a", " <", " b"}},
		{"x  y", []string{"x", " ", " y"}},
		{"Grüße, 東京 ✓ 😀", []string{"Grüße", ",", " 東京", " ✓", " 😀"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := SplitTokens(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Whatever the input, the pieces must add up to it, and a piece of valid
// text must never end inside a character.
func TestSplitTokensCoversInput(t *testing.T) {
	for _, in := range []string{
		"plain words and\ttabs\r\n",
		"émoji 👩‍💻 and combining e\u0301",
		"<tool_call>{\"a\":[1,2.5,null]}</tool_call><|im_end|>",
		"invalid \xff\xfe bytes",
		"<<>><a b>",
	} {
		pieces := SplitTokens(in)
		if got := strings.Join(pieces, ""); got != in {
			t.Errorf("SplitTokens(%q) joined = %q", in, got)
		}
		if !utf8.ValidString(in) {
			continue
		}
		for _, p := range pieces {
			if !utf8.ValidString(p) {
				t.Errorf("SplitTokens(%q) cut a character: piece %q", in, p)
			}
		}
	}
}

func TestSplitEvery(t *testing.T) {
	tests := []struct {
		n    int
		in   string
		want []string
	}{
		{3, "<tool_call>", []string{"<to", "ol_", "cal", "l>"}},
		{1, "é", []string{"\xc3", "\xa9"}},
		{2, "a✓", []string{"a\xe2", "\x9c\x93"}},
		{5, "abc", []string{"abc"}},
		{4, "", nil},
	}
	for _, tt := range tests {
		if got := SplitEvery(tt.n)(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitEvery(%d)(%q) = %q, want %q", tt.n, tt.in, got, tt.want)
		}
	}
}

func TestSplitEveryRejectsZero(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SplitEvery(0) did not panic")
		}
	}()
	SplitEvery(0)
}
