package web

import (
	"strings"
	"testing"
)

func TestModelPanelNamesTheTemplateAndTheServer(t *testing.T) {
	if html := render(t, sample); strings.Contains(html, "<dt>Template</dt>") || strings.Contains(html, "<dt>Base URL</dt>") {
		t.Error("the Model panel shows a template or a base URL that Ollama's backend does not have")
	}
	d := sample
	d.Backend, d.Model, d.Template, d.BaseURL = "openai", "Qwen/Qwen3-4B", "qwen3", "http://127.0.0.1:8000/v1"
	html := render(t, d)
	for _, want := range []string{
		"<dt>Template</dt><dd><code>qwen3</code></dd>",
		"<dt>Base URL</dt><dd><code>http://127.0.0.1:8000/v1</code></dd>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the Model panel lacks %q", want)
		}
	}
}
