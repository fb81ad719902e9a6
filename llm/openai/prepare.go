package openai

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolscope/toolscope/llm"
	ollamatemplate "github.com/toolscope/toolscope/llm/template"
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
		return llm.Input{}, b.noTemplate(ctx, model, terr)
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

// noTemplate is the error for a model toolscope has no template for,
// unless the server does not serve that model at all: a typo in the name
// is the thing to fix then, not the template.
func (b *Backend) noTemplate(ctx context.Context, model string, templateErr error) error {
	served := b.served(ctx)
	if len(served) > 0 && !slices.Contains(served, model) {
		return b.unknownModel("prepare", model, served, nil)
	}
	return templateErr
}
