package openai

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolscope/toolscope/llm"
	ollamatemplate "github.com/toolscope/toolscope/llm/ollama/template"
)

var _ llm.Backend = (*Backend)(nil)

// Prepare settles the model, decides whether it thinks (by its template's
// family when the request does not say) and, in raw mode, renders the
// prompt that Stream will send as it is.
func (b *Backend) Prepare(ctx context.Context, req llm.Request) (llm.Input, error) {
	model, err := b.resolveModel(ctx)
	if err != nil {
		return llm.Input{}, err
	}
	in := llm.Input{Mode: b.mode, Messages: slices.Clone(req.Messages), Options: req.Options}
	t, terr := b.template(model)
	if req.Think != nil {
		in.Think = *req.Think
	} else if terr == nil {
		in.Think = t.Think
	}
	if b.mode == llm.ModeChat {
		return in, nil // the server renders; a family it knows decides nothing here
	}
	if terr != nil {
		return llm.Input{}, terr
	}
	if in.Think && !t.Think {
		return llm.Input{}, &llm.Error{Op: "prepare", Problem: fmt.Sprintf("template %q is for a model family that does not think", t.Name),
			Fix: &llm.Fix{Do: "serve a thinking model such as Qwen/Qwen3-4B", Setting: llm.SettingThink, Value: "false"}}
	}
	if in.Prompt, err = ollamatemplate.Render(t.Text, in.Messages, in.Think); err != nil {
		return llm.Input{}, &llm.Error{Op: "prepare", Problem: fmt.Sprintf("render the prompt with template %q: %v", t.Name, err),
			Fix: &llm.Fix{Setting: llm.SettingMode, Value: string(llm.ModeChat)}, Err: err}
	}
	return in, nil
}
