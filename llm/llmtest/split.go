// Package llmtest cuts a model's reply into the pieces a server streams, so
// that the in-process test servers of every protocol (ollamatest,
// openaitest) count tokens alike and can cut where real servers never do.
package llmtest

import "regexp"

// tokenRE cuts text roughly where a model's tokenizer would: special tags
// such as <tool_call> or <|im_end|> whole, words whole, any other character
// alone — each with one leading space — and runs of newlines together.
// Some alternative matches every character, so the matches always add up
// to the whole input, and none ends inside a UTF-8 character.
var tokenRE = regexp.MustCompile(` ?</?[A-Za-z_|][A-Za-z0-9_|]*>|\n+| ?[\p{L}\p{M}\p{N}]+| ?[^\s\p{L}\p{M}\p{N}]|\s`)

// SplitTokens cuts s into token-sized pieces, as a real server streams
// them: the test servers' default.
func SplitTokens(s string) []string {
	return tokenRE.FindAllString(s, -1)
}

// SplitEvery returns a splitter that cuts text into n-byte pieces, cutting
// through tags and UTF-8 characters alike. Real Ollama never cuts a
// character; other servers and proxies may.
//
// JSON cannot carry half a character: the server's encoder, like any,
// writes U+FFFD for each invalid byte, so a client reads a cut character as
// replacement characters. Use multibyte text with SplitEvery only to test
// exactly that.
func SplitEvery(n int) func(string) []string {
	if n < 1 {
		panic("llmtest: SplitEvery needs n >= 1")
	}
	return func(s string) []string {
		var pieces []string
		for len(s) > n {
			pieces = append(pieces, s[:n])
			s = s[n:]
		}
		if s != "" {
			pieces = append(pieces, s)
		}
		return pieces
	}
}
