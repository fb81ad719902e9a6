// Package demo is toolscope's offline model: a scripted llm.Backend for
// machines with no Ollama, such as workshop laptops and CI.
//
// It behaves like a small Qwen3 model that knows the built-in tools
// (send_mail, schedule_meeting, cancel_meeting) and those of toolscope's
// calculator and converter MCP servers. It calls the built-in tools by the
// names of tool and argument that package tools defines them with
// (tools.SendMail, tools.ArgTo, …), so that renaming one there renames it
// here. It reads only the rendered prompt,
// exactly the text a real model would read: the tools offered in the
// system prompt and the dialect it says to write calls in, today's date,
// the request and any <tool_response> blocks. It then writes raw output
// token by token, <think> reasoning and tool calls in that dialect
// included, so that the rest of toolscope parses and runs it as it would
// a real model's. It does no arithmetic of its own: sums go to the
// calculator, or get an honest "I can't". It is deterministic: the same
// prompt always gets the same reply.
//
// It reads everyday wording in English, French, German and Spanish
// ("tell bob@co.com I'm late", "dis à paul@exemple.fr que …"), takes
// "him" or "it" from the earlier turns of the prompt, and asks for what
// a call needs but the request leaves out. Whatever the request's
// length, its reply is a bounded number of tokens: it summarises the
// request, never copies it out.
package demo

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/llm/template"
)

// Config configures the demo model.
type Config struct {
	// TokenDelay is the pause between two tokens. About 30ms reads like a
	// small model on a laptop; 0 streams as fast as the caller reads.
	TokenDelay time.Duration
}

// Model is the scripted offline model. It is safe for concurrent use.
type Model struct {
	cfg Config
}

var _ llm.Backend = (*Model)(nil)

// New returns a demo model.
func New(cfg Config) *Model {
	return &Model{cfg: cfg}
}

// Info describes the model, marked as the demo so that every front end
// can say so.
func (m *Model) Info() llm.Info {
	return llm.Info{Backend: "demo", Model: "toolscope-demo", Mode: llm.ModeRaw, Demo: true}
}

// Prepare renders req with the Qwen3 template, as Ollama would for a
// qwen3 model. Reasoning is on unless req turns it off.
func (m *Model) Prepare(ctx context.Context, req llm.Request) (llm.Input, error) {
	if err := ctx.Err(); err != nil {
		return llm.Input{}, err
	}
	think := req.Think == nil || *req.Think
	prompt, err := template.Render(template.Qwen3, req.Messages, think)
	if err != nil {
		return llm.Input{}, err
	}
	return llm.Input{Mode: llm.ModeRaw, Messages: slices.Clone(req.Messages), Prompt: prompt, Think: think}, nil
}

// Stream writes the reply to in.Prompt, one token per chunk, pausing
// TokenDelay between tokens. It reads nothing but in.Prompt. When ctx
// ends or fn fails it stops at once and returns that error, with stats
// counting the tokens handed to fn so far.
func (m *Model) Stream(ctx context.Context, in llm.Input, fn func(llm.Chunk) error) (stats llm.Stats, err error) {
	start := time.Now()
	if in.Prompt == "" {
		return llm.Stats{}, errors.New("demo model: the input has no prompt; build it with Prepare")
	}
	conv := readPrompt(in.Prompt)
	pieces := tokenize(respond(conv).write(conv))
	stats = llm.Stats{PromptTokens: len(tokenize(in.Prompt)), PromptDuration: time.Since(start)}
	evalStart := time.Now()
	defer func() {
		stats.EvalDuration = time.Since(evalStart)
		stats.TotalDuration = time.Since(start)
	}()
	var pace pacer
	defer pace.stop()
	for i, p := range pieces {
		delay := m.cfg.TokenDelay
		if i == 0 {
			delay = 0 // the first token follows the prompt at once
		}
		if err := pace.wait(ctx, delay); err != nil {
			return stats, err
		}
		stats.OutputTokens++
		if err := fn(llm.Chunk{Content: p}); err != nil {
			return stats, err
		}
	}
	stats.DoneReason = "stop"
	return stats, nil
}
