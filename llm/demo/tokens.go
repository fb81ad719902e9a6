package demo

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolscope/toolscope/streamparser"
)

// specialTokens are single tokens: Qwen's own, and the marker that opens a
// call in each dialect. They are cut out before the text around them is
// split, as a real tokenizer does, so each one always arrives as one whole
// piece.
var specialTokens = append([]string{
	"<|im_start|>", "<|im_end|>",
	"<think>", "</think>",
	"</tool_call>",
	"<tool_response>", "</tool_response>",
}, markers()...)

func markers() []string {
	var ms []string
	for _, d := range streamparser.Dialects() {
		ms = append(ms, d.Marker())
	}
	return ms
}

// maxPieceRunes bounds a piece: a tokenizer's vocabulary has no very long
// words, so a long word comes out in several pieces.
const maxPieceRunes = 10

// tokenize splits text into the pieces a Qwen model would emit one by one.
// Pieces are whole runes, and together they spell text exactly.
func tokenize(text string) []string {
	var pieces []string
	for text != "" {
		at, special := nextSpecial(text)
		pieces = appendWords(pieces, text[:at])
		if special == "" {
			break
		}
		pieces = append(pieces, special)
		text = text[at+len(special):]
	}
	return pieces
}

// nextSpecial finds the first special token in text. It returns len(text)
// and "" when there is none.
func nextSpecial(text string) (at int, special string) {
	at = len(text)
	for _, s := range specialTokens {
		if i := strings.Index(text, s); i >= 0 && i < at {
			at, special = i, s
		}
	}
	return at, special
}

// appendWords splits text that holds no special token the way Qwen's
// pre-tokenizer does, whose pattern is
//
//	's|'t|'re|'ve|'m|'ll|'d | [^\r\n\pL\pN]?\pL+ | \pN | ?[^\s\pL\pN]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//
// so words keep their leading space, digits come one at a time, and runs
// of punctuation such as `{"` or `":` stay together.
func appendWords(pieces []string, text string) []string {
	for text != "" {
		n := wordLen(text)
		pieces = append(pieces, splitLong(text[:n])...)
		text = text[n:]
	}
	return pieces
}

// wordLen returns the byte length of the pre-token at the start of s.
func wordLen(s string) int {
	if n := contractionLen(s); n > 0 {
		return n
	}
	r, size := utf8.DecodeRuneInString(s)
	next, _ := utf8.DecodeRuneInString(s[size:])
	switch {
	case unicode.IsLetter(r), !isNewline(r) && !unicode.IsNumber(r) && unicode.IsLetter(next):
		return size + spanLen(s[size:], unicode.IsLetter)
	case unicode.IsNumber(r):
		return size
	}
	if n := punctLen(s); n > 0 {
		return n
	}
	return spaceLen(s)
}

func contractionLen(s string) int {
	if !strings.HasPrefix(s, "'") {
		return 0
	}
	for _, c := range []string{"'re", "'ve", "'ll", "'s", "'t", "'m", "'d"} {
		if len(s) >= len(c) && strings.EqualFold(s[:len(c)], c) {
			return len(c)
		}
	}
	return 0
}

// punctLen matches ` ?[^\s\pL\pN]+[\r\n]*`.
func punctLen(s string) int {
	n := 0
	if strings.HasPrefix(s, " ") {
		n = 1
	}
	run := spanLen(s[n:], isPunct)
	if run == 0 {
		return 0
	}
	n += run
	return n + spanLen(s[n:], isNewline)
}

// spaceLen matches `\s*[\r\n]+`, then `\s+(?!\S)`, then `\s+`: a blank
// run up to its last newline, or else all of it but the space that a
// following word takes as its own.
func spaceLen(s string) int {
	run := spanLen(s, unicode.IsSpace)
	if i := strings.LastIndexAny(s[:run], "\r\n"); i >= 0 {
		return i + 1
	}
	if run < len(s) {
		if _, last := utf8.DecodeLastRuneInString(s[:run]); run > last {
			return run - last
		}
	}
	return run
}

// splitLong cuts a pre-token into pieces of at most maxPieceRunes runes.
func splitLong(word string) []string {
	var out []string
	for utf8.RuneCountInString(word) > maxPieceRunes {
		cut := 0
		for range maxPieceRunes {
			_, size := utf8.DecodeRuneInString(word[cut:])
			cut += size
		}
		out = append(out, word[:cut])
		word = word[cut:]
	}
	return append(out, word)
}

// spanLen returns the byte length of the longest prefix of s whose runes
// all satisfy ok.
func spanLen(s string, ok func(rune) bool) int {
	for i, r := range s {
		if !ok(r) {
			return i
		}
	}
	return len(s)
}

func isNewline(r rune) bool { return r == '\n' || r == '\r' }

func isPunct(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}
