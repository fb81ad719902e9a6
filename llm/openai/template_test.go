package openai

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
	ollamatemplate "github.com/toolscope/toolscope/llm/template"
)

// A round after a tool call: system, user, the assistant's call, and the
// tool's response in a user turn, as toolscope sends them.
var round = []llm.Message{
	{Role: llm.RoleSystem, Content: "Be brief."},
	{Role: llm.RoleUser, Content: "Mail john"},
	{Role: llm.RoleAssistant, Content: "<tool_call>\n{}\n</tool_call>"},
	{Role: llm.RoleUser, Content: "<tool_response>\n{}\n</tool_response>"},
}

// The wanted prompts are the families' Hugging Face chat templates
// rendered for round with the generation prompt, less the
// beginning-of-text token that the server's tokenizer adds.
func TestBuiltinTemplatesRenderAsTheFamiliesTemplates(t *testing.T) {
	for name, want := range map[string]string{
		"llama3": "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>" +
			"<|start_header_id|>user<|end_header_id|>\n\nMail john<|eot_id|>" +
			"<|start_header_id|>assistant<|end_header_id|>\n\n<tool_call>\n{}\n</tool_call><|eot_id|>" +
			"<|start_header_id|>user<|end_header_id|>\n\n<tool_response>\n{}\n</tool_response><|eot_id|>" +
			"<|start_header_id|>assistant<|end_header_id|>\n\n",
		"mistral": "[INST] Mail john[/INST] <tool_call>\n{}\n</tool_call></s>[INST] Be brief.\n\n<tool_response>\n{}\n</tool_response>[/INST]",
		"qwen3coder": "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nMail john<|im_end|>\n" +
			"<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>\n" +
			"<|im_start|>user\n<tool_response>\n{}\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
	} {
		tmpl, err := LoadTemplate(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ollamatemplate.Render(tmpl.Text, round, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", name, got, want)
		}
	}
}

func TestWithoutASystemPrompt(t *testing.T) {
	user := []llm.Message{{Role: llm.RoleUser, Content: "Hi"}}
	for name, want := range map[string]string{
		"llama3":     "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
		"mistral":    "[INST] Hi[/INST]",
		"qwen3coder": "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
	} {
		got, err := ollamatemplate.Render(builtin[name].Text, user, false)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestGuessTemplate(t *testing.T) {
	for model, want := range map[string]string{
		"Qwen/Qwen3-4B":                         "qwen3",
		"Qwen/Qwen3-Coder-30B-A3B-Instruct":     "qwen3coder",
		"qwen3-coder:30b":                       "qwen3coder",
		"Qwen/Qwen2.5-7B-Instruct":              "qwen3",
		"NousResearch/Hermes-3-Llama-3.1-8B":    "qwen3",
		"meta-llama/Llama-3.1-8B-Instruct":      "llama3",
		"llama3.2:3b":                           "llama3",
		"mistralai/Mistral-7B-Instruct-v0.3":    "mistral",
		"mistralai/Ministral-8B-Instruct-2410":  "mistral",
		"google/gemma-3-4b-it":                  "",
		"/models/llama_3_2_3b_instruct_q4.gguf": "llama3",
	} {
		if got := GuessTemplate(model); got != want {
			t.Errorf("GuessTemplate(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestTemplateFromAFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "phi.gotmpl")
	os.WriteFile(good, []byte("{{ range .Messages }}<|{{ .Role }}|>{{ .Content }}<|end|>{{ end }}<|assistant|>"), 0o600)
	tmpl, err := LoadTemplate(good)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Name != good || tmpl.Think || len(tmpl.Stop) != 0 {
		t.Errorf("template %+v", tmpl)
	}
	bad := filepath.Join(dir, "bad.gotmpl")
	os.WriteFile(bad, []byte("{{ .Messages"), 0o600)
	if _, err := LoadTemplate(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a broken template file: %v", err)
	}
	if _, err := LoadTemplate(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "llama3, mistral, qwen3, qwen3coder") {
		t.Errorf("a missing file: %v, want the built-in names", err)
	}
}
