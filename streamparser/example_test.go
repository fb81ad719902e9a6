package streamparser_test

import (
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/toolscope/toolscope/streamparser"
)

// A reply arrives in chunks that cut its tags, and even a UTF-8 character,
// in two. The parser holds back what may be the start of a tag until it
// knows, so it finds the same thinking, text and call as in the whole reply.
func Example() {
	chunks := []string{
		"<thi", "nk>Mail John.</th", "ink>On it \xe2\x9c", "\x89\n<tool_",
		`call>{"name": "send_mail", "arguments": {"to": "john@`, `example.com"}}</tool`,
		"_call>",
	}
	p, err := streamparser.New(streamparser.Options{Dialect: streamparser.Hermes})
	if err != nil {
		panic(err)
	}
	show := func(e streamparser.Event) {
		switch e.Kind {
		case streamparser.Text, streamparser.Thinking, streamparser.CallDelta:
			fmt.Printf("%-13v %q\n", e.Kind, e.Text)
		case streamparser.CallParsed:
			fmt.Printf("%-13v #%d %s %s\n", e.Kind, e.Index, e.Call.Name, e.Call.Arguments)
		default:
			fmt.Println(e.Kind)
		}
	}
	for _, chunk := range chunks {
		p.Feed(chunk, show)
	}
	p.Flush(show)
	// Output:
	// thinking_open
	// thinking      "Mail John."
	// thinking_close
	// text          "On it "
	// text          "✉"
	// text          "\n"
	// call_open
	// call_delta    "{\"name\": \"send_mail\", \"arguments\": {\"to\": \"john@"
	// call_delta    "example.com\"}}"
	// call_parsed   #0 send_mail {"to":"john@example.com"}
}

// Each dialect is read by the same Parser. In Pythonic, a bare call is a
// call only for the tools named in Options.Tools: anything else that looks
// like one, such as print("hi"), is text.
func ExampleNew_pythonic() {
	p, err := streamparser.New(streamparser.Options{
		Dialect: streamparser.Pythonic,
		Tools:   []string{"send_mail"},
	})
	if err != nil {
		panic(err)
	}
	reply := "First print(\"hi\"), then:\nsend_mail(to=\"ann@example.com\", subject=\"Lunch?\", urgent=False)"
	show := func(e streamparser.Event) {
		switch e.Kind {
		case streamparser.Text:
			fmt.Printf("text %q\n", e.Text)
		case streamparser.CallParsed:
			fmt.Println("call", e.Call.Name, string(e.Call.Arguments))
		}
	}
	p.Feed(reply, show)
	p.Flush(show)
	// Output:
	// text "First print(\"hi\"), then:\n"
	// call send_mail {"to":"ann@example.com","subject":"Lunch?","urgent":false}
}

// A reply that ends inside a call, say because the model hit its token
// limit, ends with a CallInvalid event from Flush. Its Reason is written
// for the model, so an agent can send it back as the call's error.
func ExampleParser_Flush() {
	var p streamparser.Parser // the zero Parser reads Hermes
	show := func(e streamparser.Event) {
		if e.Kind == streamparser.CallInvalid {
			fmt.Printf("call #%d: %q\n", e.Index, e.Call.Raw)
			fmt.Println(e.Call.Reason == streamparser.Unclosed)
		}
	}
	p.Feed(`<tool_call>{"name": "send_mail", "argu`, show)
	p.Flush(show)
	// Output:
	// call #0: "{\"name\": \"send_mail\", \"argu"
	// true
}

// Pending is what the parser holds back between chunks: a screen can show
// it greyed out, as text that may yet turn out to be a tag.
func ExampleParser_Pending() {
	var p streamparser.Parser
	show := func(e streamparser.Event) { fmt.Printf("%v %q\n", e.Kind, e.Text) }
	p.Feed("Let me check. <tool", show)
	fmt.Printf("pending %q\n", p.Pending())
	p.Feed("box> is not a tag.", show)
	fmt.Printf("pending %q\n", p.Pending())
	// Output:
	// text "Let me check. "
	// pending "<tool"
	// text "<"
	// text "tool"
	// text "box> is not a tag."
	// pending ""
}

// A dialect also writes calls the way a model taught by its Instructions
// writes them: what a demo model, or a test, needs to fake a reply.
func ExampleDialect_WriteCalls() {
	d, err := streamparser.ParseDialect("mistral")
	if err != nil {
		log.Fatal(err)
	}
	draft, err := streamparser.NewDraft("send_mail", json.RawMessage(`{"to": "ann@example.com", "subject": "Lunch?"}`))
	if err != nil {
		log.Fatal(err)
	}
	var b strings.Builder
	d.WriteCalls(&b, []streamparser.Draft{draft})
	fmt.Println(b.String())
	// Output:
	// [TOOL_CALLS] [{"name": "send_mail", "arguments": {"to": "ann@example.com", "subject": "Lunch?"}}]
}
