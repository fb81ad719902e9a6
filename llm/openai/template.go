package openai

import (
	"embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/llm"
	ollamatemplate "github.com/toolscope/toolscope/llm/template"
)

// Template is a chat template for raw mode, in Ollama's Go-template format
// so that Ollama's own code renders it (see package llm/ollama/template).
type Template struct {
	// Name is a built-in template's name, or the file's path.
	Name string
	// Text is the template itself.
	Text string
	// Think tells whether the family reasons before it answers; it is
	// the default when a request does not say.
	Think bool
	// Stop ends a reply at the family's end-of-turn text, for servers
	// whose raw completions do not stop there themselves.
	Stop []string
}

// The built-in templates, by name: faithful to the chat templates the
// families ship on Hugging Face (what vLLM renders in chat mode), for the
// messages toolscope sends. Tools are never passed to a template: they are
// in the system prompt, in the dialect toolscope teaches.
var builtin = map[string]*Template{
	"qwen3": {Name: "qwen3", Text: ollamatemplate.Qwen3, Think: true, Stop: []string{"<|im_end|>", "<|im_start|>"}},
	// Qwen3-Coder does not think; its template is ChatML without
	// Qwen3's /think switches.
	"qwen3coder": {Name: "qwen3coder", Text: file("qwen3coder"), Stop: []string{"<|im_end|>", "<|im_start|>"}},
	// Llama 3.1 to 3.3: the system turn with the knowledge cut-off and a
	// fixed date, as the template gives when none is passed.
	"llama3": {Name: "llama3", Text: file("llama3"), Stop: []string{"<|eot_id|>", "<|eom_id|>"}},
	// Mistral Instruct v0.3 and later: the system prompt heads the last
	// user turn.
	"mistral": {Name: "mistral", Text: file("mistral"), Stop: []string{"</s>", "[INST]"}},
}

//go:embed templates/*.gotmpl
var files embed.FS

// file reads an embedded template. Each file ends its last action with
// "-}}", so the newline editors add is not part of the prompt.
func file(name string) string {
	b, err := files.ReadFile(path.Join("templates", name+".gotmpl"))
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}

// Templates lists the built-in templates' names.
func Templates() []string {
	names := make([]string, 0, len(builtin))
	for name := range builtin {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// LoadTemplate returns the built-in template called nameOrFile, or else
// reads the file of that path. A file's template thinks when it reads
// .Think, and has no stop texts: the server's own end-of-turn token ends
// the reply.
func LoadTemplate(nameOrFile string) (*Template, error) {
	if t, ok := builtin[nameOrFile]; ok {
		return t, nil
	}
	b, err := os.ReadFile(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("template %q is neither one of %s nor a readable file: %w", nameOrFile, strings.Join(Templates(), ", "), err)
	}
	t := &Template{Name: nameOrFile, Text: string(b), Think: strings.Contains(string(b), ".Think")}
	// A template that cannot render fails here, with the settings, rather
	// than at the first request.
	if _, err := ollamatemplate.Render(t.Text, []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, t.Think); err != nil {
		return nil, fmt.Errorf("template file %q: %w", nameOrFile, err)
	}
	return t, nil
}

// GuessTemplate names the built-in template for a model id such as
// "Qwen/Qwen3-4B" or "meta-llama/Llama-3.1-8B-Instruct"; "" when the
// family is not one toolscope carries.
func GuessTemplate(model string) string {
	m := strings.ToLower(model)
	m = strings.NewReplacer("_", "-", ".", "-").Replace(m[strings.LastIndex(m, "/")+1:])
	switch {
	case strings.Contains(m, "qwen3-coder") || strings.Contains(m, "qwen3coder"):
		return "qwen3coder"
	case strings.Contains(m, "qwen") || strings.Contains(m, "hermes"):
		return "qwen3"
	case strings.Contains(m, "llama-3") || strings.Contains(m, "llama3"):
		return "llama3"
	case strings.Contains(m, "mistral") || strings.Contains(m, "ministral"):
		return "mistral"
	}
	return ""
}

// template is the template for model: the configured one, else the guess.
func (b *Backend) template(model string) (*Template, error) {
	if b.fixed != nil {
		return b.fixed, nil
	}
	if name := GuessTemplate(model); name != "" {
		return builtin[name], nil
	}
	return nil, &llm.Error{Op: "prepare",
		Problem: fmt.Sprintf("toolscope carries no chat template for model %q, and the server does not publish its own: name one of %s, or a file in Ollama's template format; or let the server render the prompt in chat mode",
			model, strings.Join(Templates(), ", ")),
		Fix: &llm.Fix{Setting: SettingTemplate}}
}
