// Package template renders a conversation into the raw prompt a model
// reads, with the model's Ollama template and Ollama's own template code,
// so that the result is byte for byte what Ollama itself would send.
//
// It is a package of llm's own, not of the Ollama backend's, because every
// backend renders a raw prompt with it: Ollama's, an OpenAI-compatible
// server's (from the family's template) and the demo model's, which, like
// the Ollama test server, shares its Qwen3 template.
package template

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
	ollamatemplate "github.com/ollama/ollama/template"

	"github.com/toolscope/toolscope/llm"
)

// Qwen3 is the chat template Ollama ships with qwen3 models. The demo
// model renders its prompts with it, and test servers return it from
// /api/show, so both read the bytes a real qwen3 would.
//
// Editors end files with a newline; the template as Ollama ships it does
// not, and a model would read that newline.
var Qwen3 = strings.TrimSuffix(qwen3File, "\n")

//go:embed qwen3.gotmpl
var qwen3File string

// Render turns messages into a raw prompt with an Ollama model template;
// think sets the template's .Think, as Ollama does when a request says
// whether the model should reason.
func Render(tmpl string, msgs []llm.Message, think bool) (string, error) {
	t, err := parse(tmpl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = t.Execute(&b, ollamatemplate.Values{
		Messages:   APIMessages(msgs),
		Think:      think,
		IsThinkSet: true,
	})
	if err != nil {
		return "", fmt.Errorf("render the model's template: %w", err)
	}
	return b.String(), nil
}

// parsed caches templates by their text: a conversation renders its
// template once per round, and parsing costs more than executing.
var parsed sync.Map // template text → *ollamatemplate.Template; one per model used

func parse(tmpl string) (*ollamatemplate.Template, error) {
	if t, ok := parsed.Load(tmpl); ok {
		return t.(*ollamatemplate.Template), nil
	}
	t, err := ollamatemplate.Parse(tmpl)
	if err != nil {
		return nil, fmt.Errorf("parse the model's template: %w", err)
	}
	parsed.Store(tmpl, t)
	return t, nil
}

// APIMessages converts messages to the form Ollama's API, templates and
// renderers take.
func APIMessages(msgs []llm.Message) []api.Message {
	out := make([]api.Message, len(msgs))
	for i, m := range msgs {
		out[i] = api.Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking}
	}
	return out
}
