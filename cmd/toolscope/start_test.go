package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// start runs ./start.sh -h as a person would, in the checkout: it builds
// bin/toolscope, then serve prints its help.
func start(t *testing.T, root string) (stderr string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "start.sh"), "-h")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("start.sh -h: %v\n%s", err, out)
	}
	return string(out)
}

// A first start builds for minutes with a cold Go cache: start.sh says so
// and counts the packages, and says nothing of a build when there is
// none. The binary it builds names the commit it was built from.
func TestStartShSaysWhenItBuilds(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "toolscope")
	if err := os.Remove(bin); err != nil && !os.IsNotExist(err) {
		t.Fatal(err) // gone, so that this start has a build to do
	}
	first := start(t, root)
	if !strings.HasPrefix(first, "building toolscope") || !strings.Contains(first, "\nbuilt toolscope in ") {
		t.Errorf("a start that builds does not say so:\n%s", first)
	}
	if again := start(t, root); !strings.HasPrefix(again, "Usage: toolscope serve") {
		t.Errorf("a start with nothing to build says more than serve -h:\n%s", again)
	}

	head, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	version, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(version), "(commit "+strings.TrimSpace(string(head))) {
		t.Errorf("bin/toolscope --version = %q, %v; want commit %s", version, err, head)
	}
}

// In a terminal, ./start.sh asks before serving whether to pull the model
// Ollama lacks, pulls it with a bar, and serves it. (Off a terminal it
// asks nothing: TestStartShSaysWhenItBuilds.) script(1) gives it the
// terminal.
func TestStartShOffersThePullInATerminal(t *testing.T) {
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1), from util-linux, for a terminal")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	server := withoutModel(t, ollamatest.Pull{Layers: []int64{3_000_000}})
	cmd := exec.Command(scriptPath, "--quiet", "--flush", "--command",
		"./start.sh --addr 127.0.0.1:0 --no-history --ollama-host "+server.Host(), "/dev/null")
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // to stop start.sh's toolscope with it
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	var said strings.Builder
	screen := bufio.NewReader(stdout)
	for !strings.Contains(said.String(), "toolscope is serving") {
		b, err := screen.ReadByte()
		if err != nil {
			t.Fatalf("start.sh ended before serving: %v; it said:\n%s", err, said.String())
		}
		said.WriteByte(b)
		if strings.HasSuffix(said.String(), "[Y/n] ") {
			io.WriteString(stdin, "\n") // Enter: yes
		}
	}
	line, _ := screen.ReadString('\n')
	out := said.String() + line
	// The bar: a percentage, the bar, the bytes.
	for _, want := range []string{"Pull qwen3:4b now (2.5 GB)? [Y/n] ", "% |", " qwen3:4b: 0 B of 3 MB", "pulled qwen3:4b (3 MB) in ", "(model qwen3:4b on ollama)"} {
		if !strings.Contains(out, want) {
			t.Errorf("start.sh in a terminal did not say %q:\n%q", want, out)
		}
	}
}
