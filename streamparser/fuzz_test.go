package streamparser

import (
	"testing"
)

// FuzzParse checks, for any input and any chunking, that the parser does
// not panic, gives the same events as for the whole input, and loses no
// byte. Run longer with: go test -fuzz FuzzParse ./streamparser/
func FuzzParse(f *testing.F) {
	for _, c := range corpus() {
		if len(c.input) < 4096 {
			f.Add(c.input, uint64(7), c.opts.InThinking)
		}
	}
	f.Fuzz(func(t *testing.T, input string, cuts uint64, inThinking bool) {
		opts := Options{InThinking: inThinking}
		whole := run(opts, []string{input})
		if got := rebuild(whole); got != input {
			t.Fatalf("rebuilt input differs\n got: %q\nwant: %q", got, input)
		}
		var chunks []string
		for s := input; len(s) > 0; cuts = cuts>>3 | cuts<<61 {
			n := min(len(s), 1+int(cuts%7))
			chunks, s = append(chunks, s[:n]), s[n:]
		}
		if got, want := merge(run(opts, chunks)), merge(whole); !equal(got, want) {
			t.Fatalf("chunked events differ\n got: %v\nwant: %v", got, want)
		}
	})
}
