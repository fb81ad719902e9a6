package ollama

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/renderers"
	ollamamodel "github.com/ollama/ollama/types/model"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/template"
)

var _ llm.Backend = (*Backend)(nil)

// modelInfo is what Prepare needs from /api/show.
type modelInfo struct {
	template string
	renderer string   // Ollama's Go renderer, used instead of template when set
	thinking bool     // the model can reason before it answers
	stop     []string // the Modelfile's stop parameters
}

// Prepare decides whether the model thinks and, in raw mode, renders the
// prompt exactly as Ollama would for these messages.
func (b *Backend) Prepare(ctx context.Context, req llm.Request) (llm.Input, error) {
	m, err := b.modelInfo(ctx)
	if err != nil {
		return llm.Input{}, err
	}
	think := m.thinking
	if req.Think != nil {
		think = *req.Think
	}
	if think && !m.thinking {
		return llm.Input{}, &llm.Error{Op: "prepare", Problem: fmt.Sprintf("model %q cannot think", b.model),
			Fix: &llm.Fix{Do: "pick a thinking model such as qwen3", Setting: llm.SettingThink, Value: "false"}}
	}
	in := llm.Input{Mode: b.mode, Messages: slices.Clone(req.Messages), Think: think, Options: req.Options}
	if b.mode == llm.ModeRaw {
		in.Prompt, err = b.render(m, in.Messages, think)
	}
	return in, err
}

// modelInfo asks /api/show about the model once per Backend. Two first
// calls at once may both ask; that is cheaper than making one wait.
func (b *Backend) modelInfo(ctx context.Context) (*modelInfo, error) {
	if m := b.info.Load(); m != nil {
		return m, nil
	}
	show, err := b.client.Show(ctx, &api.ShowRequest{Model: b.model})
	if err != nil {
		return nil, b.explain(ctx, "prepare", err)
	}
	m := &modelInfo{
		template: show.Template,
		renderer: show.Renderer,
		thinking: slices.Contains(show.Capabilities, ollamamodel.CapabilityThinking),
		stop:     stopParameters(show.Parameters),
	}
	b.info.Store(m)
	return m, nil
}

// render builds the raw prompt the way Ollama's server does: with the
// model's Go renderer when it has one, otherwise with its template.
func (b *Backend) render(m *modelInfo, msgs []llm.Message, think bool) (string, error) {
	switch {
	case m.renderer != "":
		prompt, err := renderers.RenderWithRenderer(m.renderer, template.APIMessages(msgs), nil, &api.ThinkValue{Value: think})
		if err != nil {
			return "", unrenderable(fmt.Sprintf("render the prompt for %q with Ollama's %q renderer: %v (this toolscope may predate the renderer)", b.model, m.renderer, err), err)
		}
		return prompt, nil
	case m.template != "":
		prompt, err := template.Render(m.template, msgs, think)
		if err != nil {
			return "", unrenderable(fmt.Sprintf("render the prompt for %q with its template: %v", b.model, err), err)
		}
		return prompt, nil
	default:
		return "", unrenderable(fmt.Sprintf("model %q has neither a template nor a renderer, so its raw prompt is unknown", b.model), nil)
	}
}

// unrenderable reports a raw prompt toolscope cannot build. Chat mode
// needs none: Ollama renders the messages itself.
func unrenderable(problem string, err error) error {
	return &llm.Error{Op: "prepare", Problem: problem, Fix: &llm.Fix{Setting: llm.SettingMode, Value: string(llm.ModeChat)}, Err: err}
}

// stopParameters reads the stop strings of /api/show's parameters, one
// "name value" line each with the value written as a Go string, as
// Ollama's server writes them.
func stopParameters(params string) []string {
	var stop []string
	for _, line := range strings.Split(params, "\n") {
		name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name != "stop" {
			continue
		}
		if s, err := strconv.Unquote(strings.TrimSpace(value)); err == nil {
			stop = append(stop, s)
		}
	}
	return stop
}
