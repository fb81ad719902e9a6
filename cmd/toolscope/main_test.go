package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/tools/mcp"
)

// binary is toolscope built once for the tests, so that they run it as a
// person would.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolscope-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "toolscope")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build toolscope: %v\n%s", err, out)
		os.Exit(1)
	}
	// The binaries these tests start keep their history and caches here,
	// never in the user's own directories. Set after the build, whose Go
	// build cache lives under XDG_CACHE_HOME too: start.sh's build keeps
	// using that cache.
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	}
	os.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func toolscope(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runBinary(t, stdin, nil, args...)
}

// toolscopeWithEnv runs toolscope with env added to the environment.
func toolscopeWithEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runBinary(t, "", env, args...)
}

func runBinary(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("run toolscope: %v", err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

const mailCall = "<tool_call>\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"john@example.com\", \"subject\": \"Standup\", \"body\": \"Tomorrow at 9.\"}}\n</tool_call>"

func TestRunAgainstOllama(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(
		ollamatest.Reply{Text: "<think>\nSend it.\n</think>\n\n" + mailCall},
		ollamatest.Reply{Text: "Your email to john@example.com has been sent."},
	)
	r := toolscope(t, "", "run", "--ollama-host", server.Host(), "--tool-delay", "0", "--show-thinking",
		"Send an email to john@example.com about tomorrow's standup")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "Your email to john@example.com has been sent.\n" {
		t.Fatalf("stdout = %q, want the answer alone", r.stdout)
	}
	for _, want := range []string{
		"tools: send_mail, schedule_meeting, cancel_meeting\n",
		`tool: send_mail({"to":"john@example.com","subject":"Standup","body":"Tomorrow at 9."}) = {"status":"sent",`,
		"thinking: Send it.",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

func TestRunJSON(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: mailCall}, ollamatest.Reply{Text: "Sent."})
	r := toolscope(t, "", "run", "mail john", "--json", "--tool-delay=0", "--ollama-host="+server.Host())
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	var types []agent.Type
	lines := bufio.NewScanner(strings.NewReader(r.stdout))
	for lines.Scan() {
		var e agent.Event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatalf("line %q is not an event: %v", lines.Text(), err)
		}
		types = append(types, e.Type)
	}
	if len(types) < 10 || types[0] != agent.RunStarted || types[len(types)-1] != agent.RunFinished {
		t.Fatalf("event types = %v", types)
	}
}

func TestRunErrors(t *testing.T) {
	server := ollamatest.New(t)
	closed := nettest.ClosedAddress(t)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"fly"}, exitUsage, `unknown command "fly"`},
		{"unknown backend", []string{"run", "--backend", "gpt", "hi"}, exitUsage, `--backend "gpt" is unknown: use ollama, demo, auto or openai`},
		{"bad mode", []string{"run", "--mode", "fast", "hi"}, exitUsage, `--mode "fast" is unknown`},
		{"every bad setting at once", []string{"run", "--max-rounds", "99", "--tool-delay", "2m", "hi"}, exitUsage,
			"toolscope run: --max-rounds 99 must be from 1 to 50\ntoolscope run: --tool-delay 2m0s must be from 0 to 60s\n"},
		{"unknown dialect", []string{"run", "--dialect", "yaml", "hi"}, exitUsage, `toolscope run: --dialect "yaml" is unknown: use hermes, marker`},
		{"serve prints no run", []string{"serve", "--json"}, exitUsage, "toolscope serve: unknown flag --json"},
		{"ollama down", []string{"run", "--backend", "ollama", "--ollama-host", closed, "hi"}, exitError, "'ollama serve', or run with --backend demo"},
		{"unreadable MCP config", []string{"run", "--mcp-config", "/nonexistent/mcp.json", "hi"}, exitError, "/nonexistent/mcp.json"},
		{"model not pulled", []string{"run", "--backend", "ollama", "--ollama-host", server.Host(), "--model", "qwen9:1b", "hi"}, exitError, "run 'ollama pull qwen9:1b'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := toolscope(t, "", c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, c.code, c.want)
			}
		})
	}
}

// Every value out of range is refused before anything starts, with exit
// 2 and one line naming the flag, not the whole usage.
func TestBadValuesAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max-rounds", "0", "hi"}, "toolscope run: --max-rounds 0 must be from 1 to 50\n"},
		{[]string{"run", "--max-rounds", "-5", "hi"}, "toolscope run: --max-rounds -5 must be from 1 to 50\n"},
		{[]string{"run", "--max-rounds", "1000", "hi"}, "toolscope run: --max-rounds 1000 must be from 1 to 50\n"},
		{[]string{"chat", "--max-rounds", "0"}, "toolscope chat: --max-rounds 0 must be from 1 to 50\n"},
		{[]string{"run", "--tool-delay", "-1s", "hi"}, "toolscope run: --tool-delay -1s must be from 0 to 60s\n"},
		{[]string{"run", "--tool-timeout", "0", "hi"}, "toolscope run: --tool-timeout 0s must be more than 0\n"},
		{[]string{"run", "--demo-delay", "-1s", "hi"}, "toolscope run: --demo-delay -1s must not be negative\n"},
		{[]string{"serve", "--keep-runs", "-5"}, "toolscope serve: --keep-runs -5 must be 0 or more\n"},
		{[]string{"serve", "--pause-timeout", "0"}, "toolscope serve: --pause-timeout 0s must be more than 0\n"},
		{[]string{"serve", "--max-rounds", "0", "--keep-runs", "-1"}, "toolscope serve: --max-rounds 0 must be from 1 to 50\ntoolscope serve: --keep-runs -1 must be 0 or more\n"},
		{[]string{"serve", "--v1-body-limit", "1KiB"}, "toolscope serve: --v1-body-limit 1KiB must be 64KiB or more\n"},
		{[]string{"run", "--backend", "demo", "--mode", "chat", "hi"}, "toolscope run: --mode \"chat\" is not available: the demo model has no chat mode\n"},
		{[]string{"run", ""}, "toolscope run: the request is empty\n"},
		{[]string{"run", " \n\t"}, "toolscope run: the request is empty\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := toolscope(t, "", c.args...)
			if r.code != exitUsage || r.stderr != c.want {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q alone", r.code, r.stderr, exitUsage, c.want)
			}
		})
	}
}

// A mistake on the command line gets one line that says what to do, and
// exit 2: not the flag package's wording, nor the whole usage.
func TestMistakesGetOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bakend", "demo", "hi"}, "toolscope run: unknown flag --bakend; did you mean --backend?\n"},
		{[]string{"chat", "-bakend=demo"}, "toolscope chat: unknown flag --bakend; did you mean --backend?\n"},
		{[]string{"run", "--show", "hi"}, "toolscope run: unknown flag --show; did you mean --show-thinking?\n"},
		{[]string{"serve", "--nope"}, "toolscope serve: unknown flag --nope; 'toolscope serve -h' lists the flags\n"},
		{[]string{"mcp", "--transprt", "http", "calculator"}, "toolscope mcp: unknown flag --transprt; did you mean --transport?\n"},
		{[]string{"run", "--think=maybe", "hi"}, "toolscope run: --think \"maybe\": not true, false or auto\n"},
		{[]string{"run", "--json=maybe", "hi"}, "toolscope run: --json \"maybe\": not true or false\n"},
		{[]string{"run", "hi", "--backend"}, "toolscope run: --backend needs a value\n"},
		{[]string{"run"}, "toolscope run needs a request, e.g. toolscope run \"What is 15 times 27?\"\n"},
		{[]string{"run", "What", "is", "2+2?"}, "toolscope run takes a request, not 3 arguments (quote it as one), e.g. toolscope run \"What is 15 times 27?\"\n"},
		{[]string{"chat", "hi"}, "toolscope chat takes flags only, not \"hi\": type each request at its > prompt\n"},
		{[]string{"tools", "search"}, "toolscope tools search needs a request, e.g. toolscope tools search \"cancel my meeting\"\n"},
		{[]string{"replay"}, "toolscope replay needs a recording file, e.g. toolscope replay run.jsonl (GET /api/runs/{id}/export makes one)\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := toolscope(t, "", c.args...)
			if r.code != exitUsage || r.stderr != c.want {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q alone", r.code, r.stderr, exitUsage, c.want)
			}
		})
	}
}

// The demo model is scripted: a --model beside it would change nothing,
// and toolscope says so rather than ignore it.
func TestDemoSaysItIgnoresTheModel(t *testing.T) {
	r := toolscope(t, "", "run", "--backend", "demo", "--model", "llama3", "--demo-delay", "0", "hi")
	if r.code != exitOK || !strings.HasPrefix(r.stderr, "toolscope run: --model llama3 is ignored: the demo model is scripted") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r = toolscope(t, "", "run", "--backend", "demo", "--demo-delay", "0", "hi"); strings.Contains(r.stderr, "ignored") {
		t.Errorf("a warning without --model:\n%s", r.stderr)
	}
}

// chat says which model and tools before its first prompt, as the docs
// promise, and not again at the first request.
func TestChatSaysModelAndToolsAtTheStart(t *testing.T) {
	const header = "model: toolscope-demo, the offline demo model (scripted, not a real LLM)\ntools: send_mail, schedule_meeting, cancel_meeting\n"
	if r := toolscope(t, "", "chat", "--backend", "demo"); r.code != exitOK || r.stderr != header+"> \n" {
		t.Fatalf("no input: exit %d, stderr %q; want the model and tools, then the prompt", r.code, r.stderr)
	}
	r := toolscope(t, "hi\n", "chat", "--backend", "demo", "--demo-delay", "0")
	if r.code != exitOK || !strings.HasPrefix(r.stderr, header+"> ") || strings.Count(r.stderr, "tools: ") != 1 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// The demo model has no chat mode: --mode chat for Ollama still starts
// when auto falls back to the demo model, and says it does not apply.
func TestModeChatOnFallbackSaysItDoesNotApply(t *testing.T) {
	r := toolscope(t, "", "run", "--mode", "chat", "--ollama-host", nettest.ClosedAddress(t), "--demo-delay", "0", "hello")
	if r.code != exitOK || !strings.Contains(r.stderr, "Chat mode does not apply: the demo model has no chat mode") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestMaxRoundsExitsWithError(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: mailCall})
	r := toolscope(t, "", "run", "--ollama-host", server.Host(), "--tool-delay", "0", "--max-rounds", "1", "mail")
	if r.code != exitError || !strings.Contains(r.stderr, "raise --max-rounds") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// A reply cut at the length limit is not an answer: run says so and exits
// with its own code, the text so far still on stdout.
func TestCutOffReplyHasItsOwnExitCode(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: "The notes say the launch moves to", DoneReason: "length"})
	r := toolscope(t, "", "run", "--ollama-host", server.Host(), "What do the notes say?")
	if r.code != exitCutOff || r.stdout != "The notes say the launch moves to\n" ||
		!strings.Contains(r.stderr, "cut off: the model reached its context or token limit") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, the text so far and the cut said", r.code, r.stdout, r.stderr, exitCutOff)
	}
}

// A model that loops until Ollama's repeat guard stops it is said as such,
// with what helps, not as a cut connection.
func TestLoopingModelIsSaidWithWhatHelps(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: "The answer is" + strings.Repeat(" the", 60), RepeatGuard: true})
	r := toolscope(t, "", "run", "--ollama-host", server.Host(), "What is the answer?")
	for _, want := range []string{`the model repeated itself, writing "the" more than 30 times in a row, and Ollama stopped the reply`, "next step: give the model a repeat penalty", "or run with another --model"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.code != exitError || strings.Contains(r.stderr, "connection was cut") {
		t.Errorf("exit %d, stderr %q: want %d, and no word of a cut connection", r.code, r.stderr, exitError)
	}
}

func TestChatKeepsHistory(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: "Hello!"}, ollamatest.Reply{Text: "You said hi."}, ollamatest.Reply{Text: "Fresh."})
	r := toolscope(t, "hi\nwhat did I say?\n/new\nagain\n", "chat", "--ollama-host", server.Host())
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != "Hello!\nYou said hi.\nFresh.\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	if n := strings.Count(r.stderr, "tools: "); n != 1 {
		t.Errorf("the tools line came %d times, want once at the start:\n%s", n, r.stderr)
	}
	requests := server.Requests()
	if !strings.Contains(requests[1].Prompt, "Hello!") {
		t.Errorf("the second turn lost the first: %q", requests[1].Prompt)
	}
	if strings.Contains(requests[2].Prompt, "Hello!") {
		t.Errorf("/new kept the old conversation: %q", requests[2].Prompt)
	}
}

func TestRunDemo(t *testing.T) {
	for _, c := range []struct{ request, tool, answer string }{
		{"Send an email to john@example.com about tomorrow's standup", `tool: send_mail({"to":"john@example.com"`, "john@example.com"},
		{"Schedule a meeting with alice@co.com on 2026-04-01 at 10:00", `tool: schedule_meeting({"title":`, "April 1"},
		{"Cancel the standup meeting on 2026-12-01", `tool: cancel_meeting({"title":"standup","date":"2026-12-01"})`, "December 1"},
	} {
		t.Run(c.request, func(t *testing.T) {
			r := toolscope(t, "", "run", "--backend", "demo", "--demo-delay", "0", "--tool-delay", "0", c.request)
			if r.code != exitOK {
				t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, c.tool) || !strings.Contains(r.stderr, "demo model") {
				t.Errorf("stderr lacks the tool line or the demo label:\n%s", r.stderr)
			}
			if !strings.Contains(r.stdout, c.answer) {
				t.Errorf("answer %q does not mention %q", r.stdout, c.answer)
			}
		})
	}
}

// TestServeFallsBackToDemo starts serve as start.sh does: with the
// default backend, auto, and the address from the environment.
func TestServeFallsBackToDemo(t *testing.T) {
	serving, stderr := serveUntilReady(t, "", "--ollama-host", nettest.ClosedAddress(t))
	if !strings.Contains(serving, "(model toolscope-demo on demo)") {
		t.Errorf("serve said %q, want the demo model", serving)
	}
	if !strings.Contains(stderr, "Starting with the offline demo model instead") {
		t.Errorf("stderr does not say why: %s", stderr)
	}
}

// serveUntilReady runs toolscope serve with stdin until it says where it
// serves, then stops it with Ctrl-C, and returns that line and stderr.
func serveUntilReady(t *testing.T, stdin string, args ...string) (serving, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_ADDR=127.0.0.1:0", "TOOLSCOPE_DATA_DIR="+t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	serving, err = bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("serve said no address: %v; stderr:\n%s", err, errs.String())
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve did not stop cleanly on Ctrl-C: %v", err)
	}
	return serving, errs.String() // read once the process is gone
}

func TestRunWithMCPCalculator(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"multiply\", \"arguments\": {\"a\": 15, \"b\": 27}}\n</tool_call>"},
		ollamatest.Reply{Text: "15 times 27 is 405."},
	)
	r := toolscope(t, "", "run", "--ollama-host", server.Host(), "--mcp", binary+" mcp calculator", "What is 15 times 27?")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"mcp: calculator - add, divide, multiply, power, round_number, sqrt, subtract\n",
		`tool: multiply({"a":15,"b":27}) = 405  (`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "15 times 27 is 405.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	// The MCP tool's result went back to the model.
	if prompt := server.Requests()[1].Prompt; !strings.Contains(prompt, "<tool_response>\n405\n</tool_response>") {
		t.Errorf("round 2 prompt lacks the MCP result:\n%s", prompt)
	}
}

// The documented --mcp "toolscope mcp calculator" runs this very binary,
// though set-ups such as ./start.sh never put it on PATH, and names the
// server calculator whatever the binary is called.
func TestMCPCommandToolscopeIsThisBinary(t *testing.T) {
	renamed := filepath.Join(t.TempDir(), "toolscope-build")
	if err := os.Link(binary, renamed); err != nil {
		t.Fatal(err)
	}
	spec, err := mcp.ParseFlag("toolscope mcp calculator", "")
	if err != nil {
		t.Fatal(err)
	}
	s := engine.Settings{Backend: engine.BackendDemo, MCP: []mcp.ServerSpec{spec}}
	e, err := engine.Start(t.Context(), s, nil, engine.WithProgram("toolscope", renamed))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	servers := e.MCPServers()
	if len(servers) != 1 || servers[0].State != mcp.StateReady || servers[0].Name != "calculator" ||
		servers[0].Target != renamed+" mcp calculator" {
		t.Fatalf("servers = %+v, want calculator ready, run by %s", servers, renamed)
	}

	server := ollamatest.New(t)
	server.Reply(
		ollamatest.Reply{Text: "<tool_call>\n{\"name\": \"multiply\", \"arguments\": {\"a\": 15, \"b\": 27}}\n</tool_call>"},
		ollamatest.Reply{Text: "405."},
	)
	cmd := exec.Command(renamed, "run", "--ollama-host", server.Host(), "--mcp", "toolscope mcp calculator", "What is 15 times 27?")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mcp: calculator - add, divide, multiply") ||
		!strings.Contains(string(out), "tool: multiply({\"a\":15,\"b\":27}) = 405") {
		t.Fatalf("with no toolscope on PATH: %v\n%s", err, out)
	}
}

// A command that answers once stops when an MCP server it was given does
// not connect, before asking the model: an answer without that server's
// tools would look like one with them. chat goes on, saying why.
func TestMCPServerFailureIsReported(t *testing.T) {
	server := ollamatest.New(t)
	server.Reply(ollamatest.Reply{Text: "Hi."})
	failed := `mcp: no-such-mcp-server --flag failed: MCP server "no-such-mcp-server": cannot start`
	for _, c := range []struct {
		command string
		args    []string
	}{
		{"run", []string{"run", "--ollama-host", server.Host(), "--mcp", "no-such-mcp-server --flag", "hello"}},
		{"tools list", []string{"tools", "list", "--mcp", "no-such-mcp-server --flag"}},
		{"tools search", []string{"tools", "search", "--mcp", "no-such-mcp-server --flag", "hello"}},
	} {
		r := toolscope(t, "", c.args...)
		stops := "toolscope " + c.command + `: the MCP server "no-such-mcp-server" did not connect (said above): fix it, or leave it out`
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, failed) || !strings.Contains(r.stderr, stops) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit %d, saying %q", c.command, r.code, r.stdout, r.stderr, exitError, stops)
		}
	}
	if n := len(server.Requests()); n != 0 {
		t.Errorf("the model was asked %d times, after the MCP server failed", n)
	}
	r := toolscope(t, "hello\n", "chat", "--ollama-host", server.Host(), "--mcp", "no-such-mcp-server --flag")
	if r.code != exitOK || !strings.Contains(r.stderr, failed) || !strings.Contains(r.stdout, "Hi.") {
		t.Errorf("chat: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestMCPCommandUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "toolscope mcp needs a server, calculator, converter or catalogue"},
		{[]string{"mcp", "abacus"}, `unknown server "abacus"`},
		{[]string{"mcp", "calculator", "--transport", "pigeon"}, `unknown transport "pigeon"`},
	} {
		r := toolscope(t, "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func TestChatStopsOnCtrlCAtThePrompt(t *testing.T) {
	cmd := exec.Command(binary, "chat", "--backend", "demo")
	stdin, err := cmd.StdinPipe() // left open: chat waits at its prompt
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The model and tools lines come first, then the prompt.
	var said []byte
	for !bytes.HasSuffix(said, []byte("\n> ")) {
		b := make([]byte, 1)
		if _, err := io.ReadFull(stderr, b); err != nil {
			t.Fatalf("no prompt after %q: %v", said, err)
		}
		said = append(said, b[0])
	}
	cmd.Process.Signal(os.Interrupt)
	go io.Copy(io.Discard, stderr)
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit code %d (%v), want %d", code, err, exitInterrupted)
	}
}

// Ctrl-C during a run stops the run, and the chat goes on with its
// history: the next request is answered, knowing the last was stopped.
func TestChatCtrlCStopsTheRunNotTheChat(t *testing.T) {
	cmd := exec.Command(binary, "chat", "--backend", "demo", "--demo-delay", "0", "--tool-delay", "1m", "--json")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	events := json.NewDecoder(stdout)
	next := func(typ agent.Type) agent.Event {
		t.Helper()
		for {
			var e agent.Event
			if err := events.Decode(&e); err != nil {
				t.Fatalf("no %s event: %v", typ, err)
			}
			if e.Type == typ {
				return e
			}
		}
	}
	io.WriteString(stdin, "Send an email to john@example.com about the launch\n")
	next(agent.ToolStarted)
	cmd.Process.Signal(os.Interrupt)
	if e := next(agent.RunFinished); e.Reason != agent.Cancelled {
		t.Fatalf("run_finished = %+v, want cancelled", e)
	}
	io.WriteString(stdin, "hello\n")
	round := next(agent.RoundStarted)
	if msgs := round.Input.Messages; len(msgs) < 2 || msgs[len(msgs)-2].Content != "(stopped by the user)" {
		t.Errorf("the next request does not follow the stopped turn's close: %+v", msgs)
	}
	if e := next(agent.RunFinished); e.Reason != agent.Answered {
		t.Fatalf("run_finished = %+v, want the next request answered", e)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("chat did not end cleanly at the end of its input: %v", err)
	}
}

func TestEnvironmentSetsFlagsAndFlagsWin(t *testing.T) {
	env := []string{"TOOLSCOPE_BACKEND=demo", "TOOLSCOPE_DEMO_DELAY=0s", "TOOLSCOPE_TOOL_DELAY=0s", "TOOLSCOPE_MAX_ROUNDS=1"}
	r := toolscopeWithEnv(t, env, "run", "Cancel the standup meeting on 2026-12-01")
	if r.code != exitError || !strings.Contains(r.stderr, "demo model") || !strings.Contains(r.stderr, "raise --max-rounds") {
		t.Fatalf("with TOOLSCOPE_MAX_ROUNDS=1: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = toolscopeWithEnv(t, env, "run", "--max-rounds", "2", "Cancel the standup meeting on 2026-12-01")
	if r.code != exitOK || !strings.Contains(r.stdout, "December 1") {
		t.Fatalf("--max-rounds 2 over TOOLSCOPE_MAX_ROUNDS=1: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = toolscopeWithEnv(t, []string{"TOOLSCOPE_TOOL_TIMEOUT=soon"}, "run", "hi")
	if r.code != exitUsage || !strings.Contains(r.stderr, "$TOOLSCOPE_TOOL_TIMEOUT: not a duration") {
		t.Fatalf("a bad variable: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHelpGroupsFlagsBySubcommand(t *testing.T) {
	run := toolscope(t, "", "run", "-h")
	serve := toolscope(t, "", "serve", "-h")
	if run.code != exitOK || serve.code != exitOK {
		t.Fatalf("-h exits %d and %d, want %d", run.code, serve.code, exitOK)
	}
	for _, want := range []string{"\nModel:\n  --backend name\n", "(default auto; $TOOLSCOPE_BACKEND)", "\nTools:\n", "\nLoop:\n", "\nOutput:\n  --json\n", "$TOOLSCOPE_MODEL"} {
		if !strings.Contains(run.stderr, want) {
			t.Errorf("run -h lacks %q:\n%s", want, run.stderr)
		}
	}
	for _, want := range []string{"\nServer:\n  --addr host:port\n", "$TOOLSCOPE_ADDR"} {
		if !strings.Contains(serve.stderr, want) {
			t.Errorf("serve -h lacks %q:\n%s", want, serve.stderr)
		}
	}
	for _, unwanted := range []string{"--json", "--show-thinking", "--mcp-timeout"} {
		if strings.Contains(serve.stderr, unwanted) {
			t.Errorf("serve -h lists %s", unwanted)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := toolscope(t, "", args...)
		if r.code != exitOK || !strings.HasPrefix(r.stdout, "toolscope ") || !strings.Contains(r.stdout, " go1.") {
			t.Errorf("%v: exit %d, stdout %q", args, r.code, r.stdout)
		}
	}
}
