package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

// healthView is GET /api/health as a client reads it.
type healthView struct {
	OK       bool   `json:"ok"`
	Backend  string `json:"backend"`
	Demo     bool   `json:"demo"`
	Error    string `json:"error"`
	Fallback *struct {
		Model   string `json:"model"`
		Problem string `json:"problem"`
		Fix     *struct {
			Do string `json:"do"`
		} `json:"fix"`
	} `json:"fallback"`
	Ollama *struct {
		Host      string `json:"host"`
		Reachable bool   `json:"reachable"`
		Ready     bool   `json:"ready"`
		Version   string `json:"version"`
		Problem   string `json:"problem"`
	} `json:"ollama"`
}

func (ts *testServer) health(t *testing.T) healthView {
	t.Helper()
	resp, err := http.Get(ts.url + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h healthView
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/health = %d, %v", resp.StatusCode, err)
	}
	return h
}

// TestHealthSaysWhatIsLive checks that /api/health tells the demo model
// chosen on purpose from one toolscope fell back to, and why, and what
// Ollama says now.
func TestHealthSaysWhatIsLive(t *testing.T) {
	ollama := ollamatest.New(t)
	closed := nettest.ClosedAddress(t)

	t.Run("demo on purpose", func(t *testing.T) {
		h := start(t, setup{}).health(t)
		if !h.OK || !h.Demo || h.Backend != "demo" || h.Fallback != nil || h.Ollama != nil {
			t.Errorf("health = %+v, want the demo model, with no fallback and no Ollama check", h)
		}
	})

	fallbacks := []struct {
		name, host, model string
		problem, fix      string
		reachable         bool
	}{
		{"Ollama not running", closed, "qwen3:4b", "Ollama is not reachable at http://" + closed, "start Ollama with 'ollama serve'", false},
		{"model not pulled", ollama.Host(), "llama9:1b", `model "llama9:1b" is not pulled`, "run 'ollama pull llama9:1b'", true},
	}
	for _, tt := range fallbacks {
		t.Run("fallback, "+tt.name, func(t *testing.T) {
			h := start(t, setup{settings: engine.Settings{Backend: engine.BackendAuto, OllamaHost: tt.host, Model: tt.model}}).health(t)
			if !h.OK || !h.Demo || h.Backend != "demo" {
				t.Errorf("health = %+v, want the demo model answering", h)
			}
			f := h.Fallback
			if f == nil || f.Model != tt.model || !strings.HasPrefix(f.Problem, tt.problem) || f.Fix == nil || f.Fix.Do != tt.fix {
				t.Fatalf("fallback = %+v, want %q: %q for %s", f, tt.problem, tt.fix, tt.model)
			}
			o := h.Ollama
			if o == nil || o.Reachable != tt.reachable || o.Ready || !strings.Contains(o.Host, tt.host) || o.Problem == "" {
				t.Errorf("ollama = %+v, want reachable=%v, not ready, at %s, with the problem", o, tt.reachable, tt.host)
			}
		})
	}

	t.Run("Ollama, ready", func(t *testing.T) {
		h := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host(), Model: "qwen3:4b"}}).health(t)
		if !h.OK || h.Demo || h.Fallback != nil || h.Ollama == nil || !h.Ollama.Ready || h.Ollama.Version != ollamatest.Version {
			t.Errorf("health = %+v, ollama = %+v; want Ollama ready", h, h.Ollama)
		}
	})
	t.Run("Ollama, down", func(t *testing.T) {
		h := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: closed, Model: "qwen3:4b"}}).health(t)
		if h.OK || h.Demo || h.Ollama == nil || h.Ollama.Reachable || !strings.Contains(h.Error, "'ollama serve'") {
			t.Errorf("health = %+v, ollama = %+v; want not ok, Ollama unreachable, with the fix", h, h.Ollama)
		}
	})
}
