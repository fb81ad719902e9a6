package streamparser

import (
	"slices"
	"testing"
)

// The fuzz targets check, in their dialect, for any input and chunking,
// that the parser does not panic, gives the same events as for the whole
// input, and that the events rebuild the input and are well formed. Run
// one longer with: go test -fuzz '^FuzzMarker$' ./streamparser/
func FuzzHermes(f *testing.F)     { fuzzDialect(f, Hermes) }
func FuzzMarker(f *testing.F)     { fuzzDialect(f, Marker) }
func FuzzPythonic(f *testing.F)   { fuzzDialect(f, Pythonic) }
func FuzzLlama3(f *testing.F)     { fuzzDialect(f, Llama3) }
func FuzzMistral(f *testing.F)    { fuzzDialect(f, Mistral) }
func FuzzFenced(f *testing.F)     { fuzzDialect(f, Fenced) }
func FuzzQwen3Coder(f *testing.F) { fuzzDialect(f, Qwen3Coder) }

// fuzzDialect seeds with the whole corpus, its own dialect's cases
// first: another dialect's input is a fine test of what is not a call.
func fuzzDialect(f *testing.F, d Dialect) {
	cases := corpus()
	for _, own := range []bool{true, false} {
		for _, c := range cases {
			if len(c.input) < 4096 && (c.opts.Dialect == d) == own {
				f.Add(c.input, uint64(7), c.opts.InThinking)
			}
		}
	}
	f.Fuzz(func(t *testing.T, input string, cuts uint64, inThinking bool) {
		opts := Options{Dialect: d, InThinking: inThinking, Tools: testTools, Schemas: testSchemas}
		whole := run(opts, []string{input})
		checkProperties(t, input, whole)
		var chunks []string
		for s := input; len(s) > 0; cuts = cuts>>3 | cuts<<61 {
			n := min(len(s), 1+int(cuts%7))
			chunks, s = append(chunks, s[:n]), s[n:]
		}
		if got, want := merge(run(opts, chunks)), merge(whole); !slices.Equal(got, want) {
			t.Fatalf("chunked events differ\n got: %v\nwant: %v", got, want)
		}
	})
}
