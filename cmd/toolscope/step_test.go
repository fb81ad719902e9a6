package main

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// chatStep runs `chat --step` on a test Ollama whose model calls
// send_mail, then says "It failed.", giving each pause the next answer
// (the first line is the request). It returns what chat wrote on stderr
// and the two prompts the model read.
func chatStep(t *testing.T, answers ...string) (stderr string, prompts []string) {
	t.Helper()
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: mailCall}, ollamatest.Reply{Text: "It failed."})
	r := toolscope(t, strings.Join(answers, "\n")+"\n", "chat", "--step", "--ollama-host", server.Host(), "--tool-delay", "0")
	if r.code != exitOK || r.stdout != "It failed.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, req := range server.Requests() {
		prompts = append(prompts, req.Prompt)
	}
	if len(prompts) != 2 {
		t.Fatalf("the model was asked %d times, want 2:\n%s", len(prompts), r.stderr)
	}
	return r.stderr, prompts
}

func TestChatStep(t *testing.T) {
	stderr, prompts := chatStep(t,
		"mail",                        // the request
		`e EDITED\nPROMPT`,            // round 1's input
		"q",                           // not an answer: asked again
		`f {"error": "mailbox full"}`, // the call's result, faked
		"",                            // the response goes back as it is
		"",                            // round 2's input too
	)
	if prompts[0] != "EDITED\nPROMPT" {
		t.Fatalf("round 1's prompt = %q, want the edited one", prompts[0])
	}
	if !strings.Contains(prompts[1], `{"error": "mailbox full"}`) {
		t.Fatalf("round 2's prompt lacks the faked result:\n%s", prompts[1])
	}
	for _, want := range []string{"paused before call 0: send_mail", `"q" is not an answer here`, "mailbox full"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// x fakes a true error: the tool does not run, the model reads the error
// as toolscope words a tool's failure, and the tool's line says faked.
func TestChatStepFakedError(t *testing.T) {
	stderr, prompts := chatStep(t,
		"mail",            // the request
		"x input",         // an error does not fit the input: asked again
		"",                // round 1's input goes as it is
		"x",               // an error needs its text: asked again
		`x mailbox\nfull`, // the call's error, faked
		"",                // the response goes back as it is
		"",                // round 2's input too
	)
	if !strings.Contains(prompts[1], "<tool_response>\n{\"error\":\"mailbox\\nfull\"}\n</tool_response>") {
		t.Fatalf("round 2's prompt lacks the faked error:\n%s", prompts[1])
	}
	for _, want := range []string{"x TEXT: fake an error", `"error" does not fit this pause`, "x needs the error's text",
		`= error: mailbox full  (faked)`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
