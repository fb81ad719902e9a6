package demo

import (
	"reflect"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"<think>\nOkay, 2026.\n</think>\n\n", []string{"<think>", "\n", "Okay", ",", " ", "2", "0", "2", "6", ".\n", "</think>", "\n\n"}},
		{`{"name": "send_mail"}`, []string{`{"`, "name", `":`, ` "`, "send", "_mail", `"}`}},
		{"\"}}\n</tool_call>\n<tool_call>", []string{"\"}}\n", "</tool_call>", "\n", "<tool_call>"}},
		{"Hello  world", []string{"Hello", " ", " world"}},
		{"tomorrow's standup", []string{"tomorrow", "'s", " standup"}},
		{"john@example.com", []string{"john", "@example", ".com"}},
		{"internationalization", []string{"internatio", "nalization"}},
		{"café ☕ München", []string{"café", " ☕", " München"}},
		{"line\n  indented", []string{"line", "\n", " ", " indented"}},
		{"<|im_start|>user\nhi<|im_end|>", []string{"<|im_start|>", "user", "\n", "hi", "<|im_end|>"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := tokenize(tt.text)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if strings.Join(got, "") != tt.text {
			t.Errorf("tokenize(%q) does not spell the text back", tt.text)
		}
	}
}

// Pieces always spell the text back and make progress, whatever the
// bytes, invalid UTF-8 included.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"<think>\nx</think>", "a  \n\n b", "\xff\xfe<tool_call>", "'re 12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := tokenize(s)
		if strings.Join(got, "") != s {
			t.Fatalf("tokenize(%q) = %q", s, got)
		}
		for _, p := range got {
			if p == "" {
				t.Fatalf("tokenize(%q) made an empty piece", s)
			}
		}
	})
}
