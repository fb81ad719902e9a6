package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/internal/nettest"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

func start(t *testing.T, s engine.Settings) (*engine.Engine, string) {
	t.Helper()
	var log strings.Builder
	e, err := engine.Start(t.Context(), s, &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, log.String()
}

func TestAutoChoosesOllamaWhenItHasTheModel(t *testing.T) {
	srv := ollamatest.New(t)
	e, log := start(t, engine.Settings{OllamaHost: srv.Host()})
	if got := e.Settings().Backend; got != engine.BackendOllama || e.Fallback() != nil || log != "" {
		t.Fatalf("backend %q, fallback %v, log %q; want Ollama, quietly", got, e.Fallback(), log)
	}
	if info := e.Backend().Info(); info.Backend != "ollama" || info.Model != engine.DefaultModel {
		t.Fatalf("default backend = %+v", info)
	}
}

func TestAutoFallsBackToDemoAndSaysWhy(t *testing.T) {
	for _, c := range []struct {
		name, host, model, why string
		getOllama              bool // whether the log tells where to get Ollama
	}{
		{"Ollama down", nettest.ClosedAddress(t), "", "'ollama serve'", true},
		{"model not pulled", ollamatest.New(t).Host(), "qwen9:1b", "ollama pull qwen9:1b", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, log := start(t, engine.Settings{OllamaHost: c.host, Model: c.model})
			f := e.Fallback()
			if e.Settings().Backend != engine.BackendDemo || f == nil || !strings.Contains(f.Reason(), c.why) {
				t.Fatalf("backend %q, fallback %v; want the demo model because %q", e.Settings().Backend, f, c.why)
			}
			if strings.Contains(f.Reason(), "demo") {
				t.Errorf("the reason %q advises the demo model, which is in use already", f.Reason())
			}
			if !e.Backend().Info().Demo {
				t.Error("the default backend is not the demo model")
			}
			if strings.Contains(log, "https://ollama.com/download") != c.getOllama {
				t.Errorf("log = %q; want where to get Ollama only when it did not answer", log)
			}
			if !strings.Contains(log, "Starting with the offline demo model instead") || !strings.Contains(log, c.why) {
				t.Errorf("log = %q", log)
			}
		})
	}
}

func TestStartRefusesBadSettings(t *testing.T) {
	_, err := engine.Start(t.Context(), engine.Settings{MaxRounds: 51}, nil)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Setting != engine.SettingMaxRounds {
		t.Fatalf("err = %v, want a *SettingError for max_rounds", err)
	}
	if _, err := engine.Start(t.Context(), engine.Settings{Backend: engine.BackendDemo, MCPConfig: "/nonexistent/mcp.json"}, nil); err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp.json") {
		t.Fatalf("unreadable MCP config: err = %v", err)
	}
	twice := append(tools.Stubs(0), tools.Stubs(0)...)
	if _, err := engine.Start(t.Context(), engine.Settings{Backend: engine.BackendDemo}, nil, engine.WithTools(twice...)); err == nil || !strings.Contains(err.Error(), "WithTools") {
		t.Fatalf("two tools of one name: err = %v, want an error naming WithTools", err)
	}
}

func TestAgentRunsTheSettings(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Reply(ollamatest.Reply{Text: ">>>CALL_FUNCTION<<< {\"name\": \"cancel_meeting\", \"arguments\": {\"title\": \"standup\", \"date\": \"2026-12-01\"}}"},
		ollamatest.Reply{Text: "Cancelled."})
	e, _ := start(t, engine.Settings{Backend: engine.BackendDemo, OllamaHost: srv.Host()})
	s := e.Settings()
	s.Backend, s.Dialect = engine.BackendOllama, streamparser.Marker
	a, err := e.Agent(s)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	res := a.Run(t.Context(), &agent.Conversation{}, "Cancel the standup on 2026-12-01", func(ev agent.Event) {
		if ev.Type == agent.ToolFinished {
			tools = append(tools, ev.Call.Name)
		}
	})
	if res.Reason != agent.Answered || strings.Join(tools, ",") != "cancel_meeting" {
		t.Fatalf("result %+v, tools run %v", res, tools)
	}
	if _, err := e.Agent(engine.Settings{Mode: "fast"}); err == nil {
		t.Error("Agent took an unknown mode")
	}
}

// TestFallbackWordsItsCause: Problem and Fix take an *llm.Error's parts
// apart, wrapped or not; any other cause is its own problem, with no fix.
func TestFallbackWordsItsCause(t *testing.T) {
	fix := &llm.Fix{Do: "run 'ollama serve'", Setting: llm.SettingBackend}
	le := &llm.Error{Problem: "Ollama does not answer", Fix: fix}
	for _, c := range []struct {
		name    string
		cause   error
		problem string
		fix     *llm.Fix
	}{
		{"llm error", le, le.Problem, fix},
		{"wrapped", fmt.Errorf("checking Ollama: %w", le), le.Problem, fix},
		{"other", errors.New("disk full"), "disk full", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &engine.Fallback{Model: "qwen3:4b", Cause: c.cause}
			if f.Problem() != c.problem || f.Fix() != c.fix {
				t.Errorf("Problem %q, Fix %v; want %q, %v", f.Problem(), f.Fix(), c.problem, c.fix)
			}
		})
	}
}

// TestRunsRecordTheirSettings: run_started carries every value that shaped
// the run, after the defaults and BackendAuto were settled, the sampling
// included, and never a secret.
func TestRunsRecordTheirSettings(t *testing.T) {
	e, _ := start(t, engine.Settings{Backend: engine.BackendAuto, OllamaHost: nettest.ClosedAddress(t), OpenAIAPIKey: "sk-secret"})
	s := engine.Settings{Backend: engine.BackendAuto, OllamaHost: e.Settings().OllamaHost, OpenAIAPIKey: "sk-secret",
		MaxRounds: 3, Dialect: streamparser.Pythonic, Sampling: &llm.Sampling{Temperature: new(0.5)}}
	a, err := e.Agent(s)
	if err != nil {
		t.Fatal(err)
	}
	var recorded json.RawMessage
	a.Run(t.Context(), &agent.Conversation{}, "Hi", func(ev agent.Event) {
		if ev.Type == agent.RunStarted {
			recorded = ev.Run.Settings
		}
	})
	var got map[string]any
	if err := json.Unmarshal(recorded, &got); err != nil {
		t.Fatalf("settings %s: %v", recorded, err)
	}
	for key, want := range map[string]any{"backend": "demo", "model": engine.DefaultModel, "mode": "raw", "dialect": "pythonic",
		"max_rounds": 3.0, "think": nil} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v, want %v", key, v, want)
		}
	}
	if sampling, _ := got[engine.KeySampling].(map[string]any); sampling["temperature"] != 0.5 {
		t.Errorf("sampling = %v, want temperature 0.5", got[engine.KeySampling])
	}
	if strings.Contains(string(recorded), "sk-secret") || strings.Contains(string(recorded), "api_key") || strings.Contains(string(recorded), "ollama_host") {
		t.Errorf("a secret or a server's own setting is recorded: %s", recorded)
	}
}
