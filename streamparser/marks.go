package streamparser

import "strings"

// Region is a part of a reply that a screen can tint. [Parser.Read] says
// which region each byte it reads stands in.
type Region string

// The regions of a reply.
const (
	TextRegion  Region = "text"  // reply text, outside thinking and calls
	ThinkRegion Region = "think" // thinking, its <think> and </think> tags included
	CallRegion  Region = "call"  // a tool call, from its marker on, and the separators joining it to the call before
)

// Description is what a front end needs to know of a dialect to show
// model text: its name and the marks to highlight. It is part of the
// event stream, so its JSON is a stable interface.
type Description struct {
	Name  string `json:"name"`
	Marks []Mark `json:"marks"`
}

// Mark is a text to highlight in model text, and the region it opens or
// closes. A mark opens its region only in reply text and closes it only
// inside that region, as the parser reads it: a marker written while
// thinking is thinking. A call that ends where its brackets balance has
// no closing mark: the parser's events tell where it ends.
type Mark struct {
	Text   string `json:"text"`
	Opens  Region `json:"opens,omitempty"`
	Closes Region `json:"closes,omitempty"`
}

// Describe returns what a front end needs to show replies in d.
func (d Dialect) Describe() Description {
	x := d.syntax()
	marks := []Mark{{Text: thinkOpen, Opens: ThinkRegion}, {Text: thinkClose, Closes: ThinkRegion}}
	for _, m := range x.opens {
		marks = append(marks, Mark{Text: m, Opens: CallRegion})
	}
	if x.close != "" {
		marks = append(marks, Mark{Text: x.close, Closes: CallRegion})
	}
	return Description{Name: x.name, Marks: marks}
}

// OpensThinking reports whether a raw prompt leaves the model inside an
// open <think> block, so that its reply starts in thinking with no
// opening tag: see Options.InThinking.
func OpensThinking(prompt string) bool {
	return strings.HasSuffix(strings.TrimRight(prompt, " \n"), thinkOpen)
}
