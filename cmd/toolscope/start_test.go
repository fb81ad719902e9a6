package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
