package ollama_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// missing is an Ollama that answers but lacks model, which it can pull as
// p says.
func missing(t *testing.T, model string, p ollamatest.Pull) (*ollamatest.Server, *ollama.Backend) {
	t.Helper()
	server := ollamatest.New(t)
	server.RemoveModel(model)
	server.AddPull(model, p)
	b, err := ollama.New(ollama.Config{Host: server.Host(), Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return server, b
}

// A pull's progress adds up the bytes of every layer begun, says Ollama's
// steps, and ends with the model pulled: the check that failed passes.
func TestPullSumsLayersThenTheModelIsThere(t *testing.T) {
	_, b := missing(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{3000, 300, 30}, Steps: 4})
	if _, err := b.Check(t.Context()); !errors.Is(err, ollama.ErrNotPulled) {
		t.Fatalf("Check before the pull = %v, want ErrNotPulled", err)
	}
	var seen []ollama.Progress
	if err := b.Pull(t.Context(), func(p ollama.Progress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for i, p := range seen {
		if layerStep := p.Status != "pulling manifest" && strings.HasPrefix(p.Status, "pulling "); layerStep != (p.Layer != "") ||
			layerStep && p.Status != "pulling "+p.Layer[7:19] {
			t.Errorf("progress %+v: its layer is not the one its status names", p)
		}
		if len(statuses) == 0 || statuses[len(statuses)-1] != p.Status {
			statuses = append(statuses, p.Status)
		}
		if i > 0 && (p.Completed < seen[i-1].Completed || p.Total < seen[i-1].Total) {
			t.Errorf("progress went back: %+v after %+v", p, seen[i-1])
		}
		if p.Completed > p.Total {
			t.Errorf("progress %+v has more done than there is", p)
		}
	}
	if statuses[0] != "pulling manifest" || !slices.Contains(statuses, "verifying sha256 digest") || statuses[len(statuses)-1] != "success" {
		t.Errorf("statuses = %q, want Ollama's: pulling manifest, the layers, verifying sha256 digest, …, success", statuses)
	}
	if layers := len(statuses) - 4; layers != 3 {
		t.Errorf("statuses = %q, want one per layer, 3", statuses)
	}
	// A third of the first layer: the second layer is not begun yet.
	if !slices.ContainsFunc(seen, func(p ollama.Progress) bool { return p.Completed == 1000 && p.Total == 3000 }) {
		t.Errorf("no progress of 1000 of 3000 bytes, a third of the first layer: %+v", seen)
	}
	last := seen[len(seen)-1]
	if last.Completed != 3330 || last.Total != 3330 || last.Status != "success" || last.Layer != "" {
		t.Errorf("the last progress is %+v, want 3330 of 3330 bytes and success", last)
	}
	if _, err := b.Check(t.Context()); err != nil {
		t.Errorf("Check after the pull = %v, want the model ready", err)
	}
}

// Each way a pull fails says what to do, with no setting to change: the
// demo model is no answer to a pull.
func TestPullErrorsSayWhatToDo(t *testing.T) {
	layers := []int64{1000}
	for _, c := range []struct {
		name, model string
		pull        *ollamatest.Pull // nil: not in the registry
		problem     string
		fix         *llm.Fix
	}{
		{"not in the registry", "qwen9:1b", nil, `model "qwen9:1b" was not found in Ollama's registry`,
			&llm.Fix{Do: "check its name at https://ollama.com/search"}},
		{"no network", "qwen3:4b", &ollamatest.Pull{Layers: layers, FailAfter: 2,
			Error: `pull model manifest: Get "https://registry.ollama.ai/v2/library/qwen3/manifests/4b": dial tcp: lookup registry.ollama.ai: no such host`},
			`cannot reach its registry to pull "qwen3:4b"`,
			&llm.Fix{Do: "connect the machine Ollama runs on to the internet (behind a proxy, start Ollama with HTTPS_PROXY set)"}},
		{"disk full", "qwen3:4b", &ollamatest.Pull{Layers: layers, FailAfter: 4, Error: "write /root/.ollama/models/blobs/sha256-3e4c-partial-3: no space left on device"},
			`Ollama ran out of disk space pulling "qwen3:4b"`,
			&llm.Fix{Do: "free some space where Ollama keeps its models (OLLAMA_MODELS, by default ~/.ollama/models)"}},
		{"mid-stream", "qwen3:4b", &ollamatest.Pull{Layers: layers, Error: "digest mismatch, file must be downloaded again"},
			`Ollama could not pull "qwen3:4b": digest mismatch`,
			&llm.Fix{Do: "try again; Ollama's server log says more"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := ollamatest.New(t)
			server.RemoveModel(c.model)
			if c.pull != nil {
				server.AddPull(c.model, *c.pull)
			}
			b, err := ollama.New(ollama.Config{Host: server.Host(), Model: c.model})
			if err != nil {
				t.Fatal(err)
			}
			err = b.Pull(t.Context(), func(ollama.Progress) {})
			wantError(t, err, "pull", c.problem, c.fix)
			if _, err := b.Check(t.Context()); !errors.Is(err, ollama.ErrNotPulled) {
				t.Errorf("after a failed pull, Check = %v, want the model still not pulled", err)
			}
		})
	}
	t.Run("Ollama down", func(t *testing.T) {
		closed := nettest.ClosedAddress(t)
		b, err := ollama.New(ollama.Config{Host: closed})
		if err != nil {
			t.Fatal(err)
		}
		err = b.Pull(t.Context(), func(ollama.Progress) {})
		wantError(t, err, "pull", "Ollama is not reachable at http://"+closed, &llm.Fix{Do: "start Ollama with 'ollama serve'"})
	})
}

// Cancelling a pull ends its request, which is what stops Ollama's pull.
func TestPullCancelEndsTheRequest(t *testing.T) {
	ended := make(chan struct{})
	_, b := missing(t, "qwen3:4b", ollamatest.Pull{Layers: []int64{1000}, WaitAfter: 3, Ended: ended})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := b.Pull(ctx, func(p ollama.Progress) {
		if p.Completed > 0 {
			cancel() // the person saw it start, then changed their mind
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Pull = %v, want context.Canceled", err)
	}
	<-ended // Ollama saw its client go
	if _, err := b.Check(t.Context()); !errors.Is(err, ollama.ErrNotPulled) {
		t.Errorf("after a cancelled pull, Check = %v, want the model still not pulled", err)
	}
}
