package demo

import (
	"strconv"
	"strings"
	"testing"
)

// filler is n characters of ordinary prose.
func filler(n int) string {
	const text = "The quarterly numbers look fine, but we should talk about the budget for next year. "
	return strings.Repeat(text, n/len(text)+1)[:n]
}

// longRequests are requests of 10,000 characters in the shapes that made
// the demo copy them out word by word.
func longRequests() map[string]string {
	const size = 10_000
	pad := func(head, tail string) string { return head + filler(size-len(head)-len(tail)) + tail }
	var addresses, sums, verbs strings.Builder
	for i := 0; addresses.Len() < size; i++ {
		addresses.WriteString("person" + strconv.Itoa(i) + "@co.com and ")
		sums.WriteString("what is 12 times 34, ")
		verbs.WriteString("email bob@co.com about the plan and ")
	}
	return map[string]string{
		"message after saying": pad("Send an email to bob@co.com saying ", ""),
		"message after tell":   pad("Tell bob@co.com ", ""),
		"message after colon":  pad("Email bob@co.com: ", ""),
		"topic after about":    pad("Email bob@co.com about ", ""),
		"meeting topic":        pad("Schedule a meeting about ", " with bob@co.com tomorrow at 10"),
		"no tool":              filler(size),
		"one long word":        "Email bob@co.com saying " + strings.Repeat("a", size),
		"long address":         "Email " + strings.Repeat("b", size) + "@co.com saying hi",
		"many addresses":       "Email " + addresses.String() + "saying hi",
		"many invitees":        "Schedule a sync tomorrow at 10 with " + addresses.String(),
		"many sums":            sums.String(),
		"many clauses":         verbs.String(),
		"no address":           pad("Send an email saying ", ""),
	}
}

// Whatever the request's length, the reply is a bounded number of
// tokens: the demo summarises rather than copy the request out.
func TestLongRequestsGetShortReplies(t *testing.T) {
	const most = 300
	for name, request := range longRequests() {
		if len(request) < 10_000 {
			t.Fatalf("%s: the request is only %d characters", name, len(request))
		}
		for _, think := range []bool{true, false} {
			tokens := streamAll(t, conversationWith(t, think, everyTool, user(request)))
			if len(tokens) >= most {
				t.Errorf("%s (thinking %v): the reply is %d tokens, want fewer than %d:\n%s", name, think, len(tokens), most, strings.Join(tokens, ""))
			}
		}
	}
}
