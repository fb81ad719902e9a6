package main

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm/llmtest"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
)

func TestRunAgainstAnOpenAICompatibleServer(t *testing.T) {
	server := openaitest.New(t)
	server.RequireKey("sk-test")
	server.Reply(
		// A proxy's cuts, through the tags: toolscope's parser still finds the call.
		openaitest.Reply{Text: "<think>\nSend it.\n</think>\n\n" + mailCall, Split: llmtest.SplitEvery(3)},
		openaitest.Reply{Text: "Your email to john@example.com has been sent."},
	)
	r := toolscope(t, "", "run", "--backend", "openai", "--openai-base-url", server.URL(), "--openai-api-key", "sk-test",
		"--tool-delay", "0", "--show-thinking", "-v", "Send an email to john@example.com about tomorrow's standup")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "Your email to john@example.com has been sent.\n" {
		t.Fatalf("stdout = %q, want the answer alone", r.stdout)
	}
	for _, want := range []string{
		`tool: send_mail({"to":"john@example.com","subject":"Standup","body":"Tomorrow at 9."}) = {"status":"sent",`,
		"thinking: Send it.",
		openaitest.DefaultModel,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	reqs := server.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/completions" || reqs[0].Model != openaitest.DefaultModel ||
		!strings.HasSuffix(reqs[1].Prompt, "<|im_start|>assistant\n") || !strings.Contains(reqs[1].Prompt, "<tool_response>") {
		t.Fatalf("requests %+v: want two raw rounds with the server's one model", reqs)
	}
}

func TestOpenAISettingsFromTheEnvironment(t *testing.T) {
	server := openaitest.New(t)
	server.RequireKey("sk-env")
	server.Reply(openaitest.Reply{Text: "Hello."})
	r := toolscopeWithEnv(t, []string{"OPENAI_BASE_URL=" + server.URL(), "OPENAI_API_KEY=sk-env", "TOOLSCOPE_BACKEND=openai"},
		"run", "--mode", "chat", "Say hello")
	if r.code != exitOK || r.stdout != "Hello.\n" {
		t.Fatalf("exit code %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if reqs := server.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" || reqs[0].Authorization != "Bearer sk-env" {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestOpenAIErrors(t *testing.T) {
	server := openaitest.New(t)
	server.SetModels("a", "b")
	keyed := openaitest.New(t)
	keyed.RequireKey("sk-right")
	closed := "http://" + nettest.ClosedAddress(t) + "/v1"
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no base URL", []string{"run", "--backend", "openai", "hi"}, exitUsage, "--openai-base-url \"\" is needed by backend openai"},
		{"bad template", []string{"run", "--backend", "openai", "--openai-base-url", server.URL(), "--template", "gemma", "hi"}, exitUsage, `--template "gemma" is neither`},
		{"unreachable", []string{"run", "--backend", "openai", "--openai-base-url", closed, "hi"}, exitError, "vllm serve Qwen/Qwen3-4B"},
		{"several models", []string{"run", "--backend", "openai", "--openai-base-url", server.URL(), "hi"}, exitError, "serves 2 models: a, b"},
		{"unknown model", []string{"run", "--backend", "openai", "--openai-base-url", server.URL(), "--model", "nope", "hi"}, exitError, `does not serve model "nope"; it serves a, b`},
		{"wrong key", []string{"run", "--backend", "openai", "--openai-base-url", keyed.URL(), "--openai-api-key", "sk-wrong", "hi"}, exitError, "the API key was refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := toolscopeWithEnv(t, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="}, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit code %d (want %d), stderr lacks %q:\n%s", r.code, c.code, c.want, r.stderr)
			}
		})
	}
}
