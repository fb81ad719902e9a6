package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// withoutModel is an Ollama that answers but lacks qwen3:4b, which it can
// pull as p says.
func withoutModel(t *testing.T, p ollamatest.Pull) *ollamatest.Server {
	t.Helper()
	server := ollamatest.New(t)
	server.RemoveModel("qwen3:4b")
	server.AddPull("qwen3:4b", p)
	return server
}

// Off a terminal, a pull is a line per step and per tenth of the bytes;
// then the model is there, and a second pull says so.
func TestPullShowsProgressThenTheModelIsThere(t *testing.T) {
	server := withoutModel(t, ollamatest.Pull{Layers: []int64{2_000_000, 1_000}, Steps: 5})
	r := toolscope(t, "", "pull", "--ollama-host", server.Host(), "qwen3:4b")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"qwen3:4b: pulling manifest\n", "qwen3:4b: 25% (500 KB of 2 MB", "qwen3:4b: verifying sha256 digest\n", "pulled qwen3:4b (2.0 MB) in "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\r") || r.stdout != "" {
		t.Errorf("a bar's redraws off a terminal, or output on stdout:\nstdout: %q\nstderr: %q", r.stdout, r.stderr)
	}
	again := toolscope(t, "", "pull", "--ollama-host", server.Host(), "qwen3:4b")
	if again.code != exitOK || !strings.Contains(again.stderr, "qwen3:4b is pulled already (Ollama "+ollamatest.Version) {
		t.Errorf("a second pull: exit %d, stderr %q; want it to say the model is there", again.code, again.stderr)
	}
	if pulled := server.Pulled(); len(pulled) != 1 {
		t.Errorf("Ollama was asked to pull %q, want once", pulled)
	}
}

// A pull that fails says why and what to do, and exits 1.
func TestPullFailureSaysWhy(t *testing.T) {
	closed := nettest.ClosedAddress(t)
	failing := withoutModel(t, ollamatest.Pull{Layers: []int64{1000}, FailAfter: 3, Error: "max retries exceeded: write /root/.ollama/models/blobs/sha256-partial: no space left on device"})
	for _, c := range []struct{ name, host, model, says string }{
		{"not in the registry", failing.Host(), "qwen9:1b", `toolscope pull: model "qwen9:1b" was not found in Ollama's registry: check its name at https://ollama.com/search`},
		{"disk full", failing.Host(), "qwen3:4b", `toolscope pull: Ollama ran out of disk space pulling "qwen3:4b"`},
		{"Ollama down", closed, "qwen3:4b", "toolscope pull: Ollama is not reachable at http://" + closed},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := toolscope(t, "", "pull", "--ollama-host", c.host, c.model)
			if r.code != exitError || !strings.Contains(r.stderr, c.says) || strings.Contains(r.stderr, "backend") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d saying %q, and no advice on the backend, which a pull has not", r.code, r.stderr, exitError, c.says)
			}
		})
	}
	if r := toolscope(t, "", "pull"); r.code != exitUsage || !strings.Contains(r.stderr, "toolscope pull needs a model, e.g. toolscope pull qwen3:4b") {
		t.Errorf("no model: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Ctrl-C stops a pull: the request to Ollama ends, which stops Ollama's
// download, and toolscope exits as interrupted.
func TestPullStopsOnCtrlC(t *testing.T) {
	ended := make(chan struct{})
	server := withoutModel(t, ollamatest.Pull{Layers: []int64{1000}, WaitAfter: 3, Ended: ended})
	cmd := exec.Command(binary, "pull", "--ollama-host", server.Host(), "qwen3:4b")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "%") {
	}
	cmd.Process.Signal(os.Interrupt)
	rest, _ := io.ReadAll(stderr)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(string(rest), "toolscope pull: stopped") {
		t.Fatalf("exit code %d, then stderr %q; want %d, saying it stopped", code, rest, exitInterrupted)
	}
	<-ended // Ollama saw its client go
}

// serve --offer-pull, which ./start.sh gives in a terminal, asks before
// serving whether to pull the model Ollama lacks; yes pulls it, and
// serve starts with it. It asks nothing when there is nothing to pull.
func TestServeOffersToPull(t *testing.T) {
	const question = "Pull qwen3:4b now (2.5 GB)? [Y/n] "
	t.Run("yes", func(t *testing.T) {
		server := withoutModel(t, ollamatest.Pull{Layers: []int64{1000}})
		serving, stderr := serveUntilReady(t, "\n", "--offer-pull", "--ollama-host", server.Host())
		if !strings.Contains(stderr, "Ollama at "+server.URL()+" has no qwen3:4b yet") || !strings.Contains(stderr, question) || !strings.Contains(stderr, "pulled qwen3:4b") {
			t.Errorf("stderr does not ask, then pull:\n%s", stderr)
		}
		if !strings.Contains(serving, "(model qwen3:4b on ollama)") || strings.Contains(stderr, "demo model instead") {
			t.Errorf("serve says %q after the pull, stderr:\n%s\nwant the model on Ollama", serving, stderr)
		}
	})
	t.Run("no", func(t *testing.T) {
		server := withoutModel(t, ollamatest.Pull{Layers: []int64{1000}})
		serving, stderr := serveUntilReady(t, "n\n", "--offer-pull", "--ollama-host", server.Host())
		if !strings.Contains(stderr, question) || !strings.Contains(stderr, "Starting with the offline demo model instead") || !strings.Contains(serving, "on demo") {
			t.Errorf("serve says %q, stderr:\n%s\nwant the question, then the demo model", serving, stderr)
		}
		if pulled := server.Pulled(); len(pulled) != 0 {
			t.Errorf("pulled %q after no", pulled)
		}
	})
	t.Run("failed pull", func(t *testing.T) {
		server := withoutModel(t, ollamatest.Pull{Layers: []int64{1000}, Error: "digest mismatch, file must be downloaded again"})
		serving, stderr := serveUntilReady(t, "y\n", "--offer-pull", "--ollama-host", server.Host())
		if !strings.Contains(stderr, `toolscope: Ollama could not pull "qwen3:4b": digest mismatch`) || !strings.Contains(serving, "on demo") {
			t.Errorf("serve says %q, stderr:\n%s\nwant the pull's failure, then the demo model", serving, stderr)
		}
	})
	nothing := []struct {
		name string
		args []string
	}{
		{"not asked to offer", []string{"--ollama-host", withoutModel(t, ollamatest.Pull{}).Host()}},
		{"the model is there", []string{"--offer-pull", "--ollama-host", ollamatest.New(t).Host()}},
		{"Ollama down", []string{"--offer-pull", "--ollama-host", nettest.ClosedAddress(t)}},
		{"another backend", []string{"--offer-pull", "--backend", "demo", "--ollama-host", withoutModel(t, ollamatest.Pull{}).Host()}},
	}
	for _, c := range nothing {
		t.Run(c.name, func(t *testing.T) {
			_, stderr := serveUntilReady(t, "y\n", c.args...)
			if strings.Contains(stderr, "Pull ") || slices.ContainsFunc(strings.Split(stderr, "\n"), func(l string) bool { return strings.HasPrefix(l, "qwen3:4b: ") }) {
				t.Errorf("serve offered a pull:\n%s", stderr)
			}
		})
	}
}

// A layer Ollama announces before it knows the layer's size is a step
// like any other in a log, not a division by zero.
func TestPullLinesBeforeALayerIsSized(t *testing.T) {
	var out strings.Builder
	v := &pullLines{w: &out, model: "qwen3:4b"}
	v.show(ollama.Progress{Status: "pulling 3e4cb1417446", Layer: "sha256:3e4cb1417446"})
	v.show(ollama.Progress{Status: "pulling 3e4cb1417446", Layer: "sha256:3e4cb1417446", Completed: 600, Total: 1000})
	if got, want := out.String(), "qwen3:4b: pulling 3e4cb1417446\nqwen3:4b: 60% (600 B of 1 KB)\n"; got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
}
