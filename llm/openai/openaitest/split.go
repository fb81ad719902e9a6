package openaitest

import "regexp"

// tokenRE cuts text roughly where a tokenizer would: special tags such as
// <tool_call> or <|im_end|> whole, words whole, any other character alone
// (each with one leading space), and runs of newlines together. Some
// alternative matches every character, so the pieces add up to the input.
var tokenRE = regexp.MustCompile(` ?</?[A-Za-z_|][A-Za-z0-9_|]*>|\n+| ?[\p{L}\p{M}\p{N}]+| ?[^\s\p{L}\p{M}\p{N}]|\s`)

// splitTokens is the default Reply.Split, and how the server counts tokens.
// For splits no real server makes, give Reply.Split ollamatest.SplitEvery.
func splitTokens(s string) []string {
	return tokenRE.FindAllString(s, -1)
}
