package server_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/toolscope/toolscope/engine"
	"github.com/toolscope/toolscope/llm/ollama/ollamatest"
)

const hiMessages = `"messages": [{"role": "user", "content": "hi"}]`

func TestOpenAIOptionsReachOllama(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "Hello."})
	ts.chat(t, `{"model": "qwen3:4b", "temperature": 0.2, "top_p": 0.9, "stop": ["x"], "seed": 7,
		"max_tokens": 10, "max_completion_tokens": 50, `+hiMessages+`}`)
	got := ollama.Requests()[0].Options
	want := map[string]any{"temperature": 0.2, "top_p": 0.9, "stop": []any{"x"}, "seed": 7.0, "num_predict": 50.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Ollama's options %v, want %v (max_completion_tokens winning over max_tokens)", got, want)
	}
}

func TestOpenAIOptionsLeftOutKeepTheModelsOwn(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "Hello."}, ollamatest.Reply{Text: "Hello."})
	ts.chat(t, `{"model": "qwen3:4b", `+hiMessages+`}`)
	ts.chat(t, `{"model": "qwen3:4b", "stop": null, "temperature": null, `+hiMessages+`}`)
	for i, r := range ollama.Requests() {
		if r.Options != nil {
			t.Errorf("request %d sent options %v: want none, so that the model's own apply", i, r.Options)
		}
	}
}

func TestOpenAIOptionsStopAsOneString(t *testing.T) {
	ollama := ollamatest.New(t)
	ts := start(t, setup{settings: engine.Settings{Backend: engine.BackendOllama, OllamaHost: ollama.Host()}})
	ollama.Reply(ollamatest.Reply{Text: "Hello."})
	ts.chat(t, `{"model": "qwen3:4b", "stop": "END", `+hiMessages+`}`)
	if got := ollama.Requests()[0].Options["stop"]; !reflect.DeepEqual(got, []any{"END"}) {
		t.Errorf("Ollama's stop %v, want [END]", got)
	}
}

func TestOpenAIOptionsOutOfRangeAreRefused(t *testing.T) {
	ts := start(t, setup{})
	for _, c := range []struct{ name, fields, param string }{
		{"temperature", `"temperature": 2.5`, "temperature"},
		{"negative temperature", `"temperature": -0.1`, "temperature"},
		{"top_p", `"top_p": 1.5`, "top_p"},
		{"max_tokens", `"max_tokens": 0`, "max_tokens"},
		{"max_completion_tokens", `"max_tokens": 5, "max_completion_tokens": -1`, "max_completion_tokens"},
		{"stop", `"stop": [1, 2]`, "stop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, b := ts.chatPost(t, `{"model": "toolscope-demo", `+c.fields+`, `+hiMessages+`}`)
			var e struct{ Error struct{ Param *string } }
			if status != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || e.Error.Param == nil || *e.Error.Param != c.param {
				t.Fatalf("status %d, body %s: want 400 naming %q", status, b, c.param)
			}
		})
	}
}
