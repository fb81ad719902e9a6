package engine_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/openai/openaitest"
)

func settingsNamed(t *testing.T, err error) []engine.Setting {
	t.Helper()
	var got []engine.Setting
	if err == nil {
		return nil
	}
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var se *engine.SettingError
		if !errors.As(e, &se) {
			t.Fatalf("%v is not a *SettingError", e)
		}
		got = append(got, se.Setting)
	}
	return got
}

func TestValidateOpenAI(t *testing.T) {
	for _, c := range []struct {
		name string
		s    engine.Settings
		want []engine.Setting
	}{
		{"fine", engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "http://127.0.0.1:8000/v1", Template: "llama3"}, nil},
		{"no base URL", engine.Settings{Backend: engine.BackendOpenAI}, []engine.Setting{engine.SettingOpenAIBaseURL}},
		{"not a URL", engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "localhost:8000"}, []engine.Setting{engine.SettingOpenAIBaseURL}},
		// Validate reads no file: Start reads the template, once.
		{"template not read", engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "http://h/v1", Template: "gemma"}, nil},
		// Ollama's address is not read for an OpenAI-compatible server,
		// nor the OpenAI settings for Ollama.
		{"ollama host ignored", engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "http://h/v1", OllamaHost: "ftp://x"}, nil},
		{"openai settings ignored", engine.Settings{Backend: engine.BackendOllama, OpenAIBaseURL: "nonsense", Template: "gemma"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := settingsNamed(t, c.s.Validate()); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("settings named %v, want %v", got, c.want)
			}
		})
	}
}

func TestStartRefusesABadTemplate(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "broken.gotmpl")
	os.WriteFile(broken, []byte("{{ .Messages"), 0o600)
	for template, want := range map[string]string{
		"gemma": `template "gemma" is neither llama3, mistral, qwen3 or qwen3coder nor a template file`,
		broken:  `nor a template file in Ollama's format`,
	} {
		_, err := engine.Start(t.Context(), engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "http://h/v1", Template: template}, nil)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Setting != engine.SettingTemplate || !strings.Contains(err.Error(), want) {
			t.Errorf("template %s: %v, want a *SettingError saying %q", template, err, want)
		}
	}
}

func TestOpenAIBackendRunsTheLoop(t *testing.T) {
	srv := openaitest.New(t)
	srv.Reply(openaitest.Reply{Text: "<tool_call>\n{\"name\": \"cancel_meeting\", \"arguments\": {\"title\": \"standup\", \"date\": \"2026-12-01\"}}\n</tool_call>"},
		openaitest.Reply{Text: "Cancelled."})
	e, log := start(t, engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: srv.URL()})
	if e.Settings().Model != "" || log != "" {
		t.Fatalf("model %q, log %q: want the server's own model, quietly", e.Settings().Model, log)
	}
	if info := e.Backend().Info(); info.Backend != "openai" || info.Model != openaitest.DefaultModel || info.Template != "qwen3" {
		t.Fatalf("backend %+v", info)
	}
	a, err := e.Agent(e.Settings())
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
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Path != "/v1/completions" || !strings.Contains(reqs[1].Prompt, "<tool_response>") {
		t.Fatalf("requests %+v: want two raw rounds, the second with the tool's response", reqs)
	}
}

func TestCheckModelOnOpenAI(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetModels("Qwen/Qwen3-4B", "Qwen/Qwen3-8B")
	e, _ := start(t, engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: srv.URL(), Model: "Qwen/Qwen3-4B"})
	for model, ok := range map[string]bool{"Qwen/Qwen3-8B": true, "Qwen/Qwen3-4B": true, "": true, "gpt-4": false} {
		s := e.Settings()
		s.Model = model
		err := e.CheckModel(t.Context(), s)
		var me *engine.ModelError
		if ok != (err == nil) || !ok && (!errors.As(err, &me) || len(me.Served) != 2) {
			t.Errorf("CheckModel(%q) = %v", model, err)
		}
	}
}

// The engine's own backend is built by Start and kept: requests naming
// other models must not evict it, or Backend would have to build it again
// from settings that may no longer hold, such as a template file since
// deleted.
func TestOwnBackendOutlivesTheCache(t *testing.T) {
	tmpl := filepath.Join(t.TempDir(), "chat.gotmpl")
	if err := os.WriteFile(tmpl, []byte("{{ range .Messages }}{{ .Content }}{{ end }}"), 0o600); err != nil {
		t.Fatal(err)
	}
	e, _ := start(t, engine.Settings{Backend: engine.BackendOpenAI, OpenAIBaseURL: "http://127.0.0.1:9/v1", Model: "own", Template: tmpl})
	own := e.Backend()
	for i := range 20 { // more models than the backend cache holds
		s := e.Settings()
		s.Model = fmt.Sprintf("other-%d", i)
		if _, err := e.Agent(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(tmpl); err != nil {
		t.Fatal(err)
	}
	if e.Backend() != own {
		t.Fatal("the engine's own backend was built again")
	}
}
