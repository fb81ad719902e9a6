package main

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

func TestChatStep(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: mailCall}, ollamatest.Reply{Text: "It failed."})
	answers := strings.Join([]string{
		"mail",                        // the request
		`e EDITED\nPROMPT`,            // round 1's input
		"q",                           // not an answer: asked again
		`f {"error": "mailbox full"}`, // the call's result, faked
		"",                            // the response goes back as it is
		"",                            // round 2's input too
	}, "\n") + "\n"
	r := toolscope(t, answers, "chat", "--step", "--ollama-host", server.Host(), "--tool-delay", "0")
	if r.code != exitOK || r.stdout != "It failed.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	requests := server.Requests()
	if len(requests) != 2 || requests[0].Prompt != "EDITED\nPROMPT" {
		t.Fatalf("requests = %+v, want the edited prompt first", requests)
	}
	if !strings.Contains(requests[1].Prompt, `{"error": "mailbox full"}`) {
		t.Fatalf("round 2's prompt lacks the faked result:\n%s", requests[1].Prompt)
	}
	for _, want := range []string{"paused before call 0: send_mail", `"q" is not an answer here`, "mailbox full"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// x fakes a true error: the tool does not run, the model reads the error
// as toolscope words a tool's failure, and the tool's line says faked.
func TestChatStepFakedError(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: mailCall}, ollamatest.Reply{Text: "It failed."})
	answers := strings.Join([]string{
		"mail",            // the request
		"x input",         // an error does not fit the input: asked again
		"",                // round 1's input goes as it is
		"x",               // an error needs its text: asked again
		`x mailbox\nfull`, // the call's error, faked
		"",                // the response goes back as it is
		"",                // round 2's input too
	}, "\n") + "\n"
	r := toolscope(t, answers, "chat", "--step", "--ollama-host", server.Host(), "--tool-delay", "0")
	if r.code != exitOK || r.stdout != "It failed.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	requests := server.Requests()
	if len(requests) != 2 || !strings.Contains(requests[1].Prompt, "<tool_response>\n{\"error\":\"mailbox\\nfull\"}\n</tool_response>") {
		t.Fatalf("round 2's prompt lacks the faked error:\n%s", requests[len(requests)-1].Prompt)
	}
	for _, want := range []string{"x TEXT: fake an error", `"error" does not fit this pause`, "x needs the error's text",
		`= error: mailbox full  (faked)`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
