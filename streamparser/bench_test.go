package streamparser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
)

// BenchmarkParse runs toolscope's parser and Ollama's own Qwen3 parser
// side by side on the same replies, cut into the same chunks:
//
//   - chunk1, chunk4, chunk16: a realistic reply (thinking, text and one
//     call) in chunks of that many bytes; a token is about 4 bytes.
//   - args16k, args64k, args256k: a reply whose call has an argument of
//     that size, in 4-byte chunks, to show how the cost grows with it.
//
// Each iteration parses the whole reply, and must find its one call.
// bench.sh runs it and writes docs/benchmarks.md.
func BenchmarkParse(b *testing.B) {
	cases := benchCases()
	b.Run("toolscope", func(b *testing.B) {
		for _, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				p := mustNew(Options{})
				calls := 0
				emit := func(e Event) {
					if e.Kind == CallParsed {
						calls++
					}
				}
				benchReplies(b, c, func(chunks []string) {
					mustReset(b, p, Options{})
					for _, s := range chunks {
						p.Feed(s, emit)
					}
					p.Flush(emit)
				}, &calls)
			})
		}
	})
	b.Run("ollama", func(b *testing.B) {
		tools := []api.Tool{benchTool("send_mail", "to", "subject", "body"), benchTool("write_file", "path", "content")}
		for _, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				p := parsers.ParserForName("qwen3-thinking")
				calls := 0
				add := func(s string, done bool) {
					_, _, found, err := p.Add(s, done)
					if err != nil {
						b.Fatal(err)
					}
					calls += len(found)
				}
				benchReplies(b, c, func(chunks []string) {
					p.Init(tools, nil, nil)
					for _, s := range chunks {
						add(s, false)
					}
					add("", true)
				}, &calls)
			})
		}
	})
}

// benchReplies times parse on c's chunks and checks that each parse
// found one call.
func benchReplies(b *testing.B, c benchCase, parse func([]string), calls *int) {
	chunks := splitEvery(c.input, c.chunk)
	b.SetBytes(int64(len(c.input)))
	b.ReportAllocs()
	for b.Loop() {
		parse(chunks)
	}
	if *calls != b.N {
		b.Fatalf("found %d calls in %d replies", *calls, b.N)
	}
}

type benchCase struct {
	name  string
	input string
	chunk int
}

func benchCases() []benchCase {
	cases := []benchCase{{"chunk1", benchReply, 1}, {"chunk4", benchReply, 4}, {"chunk16", benchReply, 16}}
	for _, kib := range []int{16, 64, 256} {
		cases = append(cases, benchCase{fmt.Sprintf("args%dk", kib), bigArgsReply(kib << 10), 4})
	}
	return cases
}

const benchReply = `<think>
The user wants to email John about tomorrow's standup. I have a send_mail tool that takes "to", "subject" and "body". John's address is john@example.com. The subject should mention the standup, and the body should say when and where it is. I'll write a short, friendly note and then call the tool.
</think>

I'll send John a short note about tomorrow's standup, with the time and the room.

<tool_call>
{"name": "send_mail", "arguments": {"to": "john@example.com", "subject": "Standup tomorrow", "body": "Hi John,\n\nA reminder that our standup is tomorrow at 9:30 in room 4B. See you there!\n\nBest"}}
</tool_call>`

// bigArgsReply is a reply that writes a file of about size bytes: JSON-
// escaped Markdown, quotes and newlines included.
func bigArgsReply(size int) string {
	const para = `## Notes\n\nThe \"parser\" reads <b>tags</b> and {braces}; it must stay linear.\n\n`
	content := strings.Repeat(para, size/len(para)+1)[:size]
	content = strings.TrimRight(content, `\`) // do not end inside an escape
	return "<think>\nI'll write the notes file.\n</think>\n\n<tool_call>\n" +
		`{"name": "write_file", "arguments": {"path": "notes.md", "content": "` + content + `"}}` +
		"\n</tool_call>"
}

// benchTool declares a tool with string parameters, for Ollama's parser.
func benchTool(name string, params ...string) api.Tool {
	props := api.NewToolPropertiesMap()
	for _, p := range params {
		props.Set(p, api.ToolProperty{Type: api.PropertyType{"string"}})
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name:       name,
		Parameters: api.ToolFunctionParameters{Type: "object", Required: params, Properties: props},
	}}
}

// BenchmarkDialects runs toolscope's parser on the realistic reply of
// BenchmarkParse written in each dialect (the call by the dialect's own
// writer), in 4-byte chunks. Ollama's parser has no counterpart for most
// of them, so it runs alone; bench.sh adds its table to the page.
func BenchmarkDialects(b *testing.B) {
	call := []Draft{{Name: "send_mail", Args: []Arg{
		{Name: "to", Value: []byte(`"john@example.com"`)},
		{Name: "subject", Value: []byte(`"Standup tomorrow"`)},
		{Name: "body", Value: []byte(`"Hi John,\n\nA reminder that our standup is tomorrow at 9:30 in room 4B. See you there!\n\nBest"`)},
	}}}
	prose, _, _ := strings.Cut(benchReply, "<tool_call>")
	for _, d := range Dialects() {
		var reply strings.Builder
		reply.WriteString(prose)
		d.WriteCalls(&reply, call)
		b.Run(d.String(), func(b *testing.B) {
			opts := Options{Dialect: d, Tools: []string{"send_mail"}}
			p := mustNew(opts)
			calls := 0
			emit := func(e Event) {
				if e.Kind == CallParsed {
					calls++
				}
			}
			benchReplies(b, benchCase{d.String(), reply.String(), 4}, func(chunks []string) {
				mustReset(b, p, opts)
				for _, s := range chunks {
					p.Feed(s, emit)
				}
				p.Flush(emit)
			}, &calls)
		})
	}
}
