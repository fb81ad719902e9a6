package runner

import (
	"encoding/json"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/transcript"
)

// graded reads what a run did, as its transcript tells it, as grading
// needs it.
func graded(t *transcript.Transcript, schemas map[string]json.RawMessage) grade.Run {
	run := grade.Run{Tools: schemas, Finish: grade.FinishCancelled}
	for _, c := range t.Calls() {
		call := grade.Call{Name: c.Name, Arguments: c.Arguments}
		switch c.State {
		case transcript.Invalid:
			call.Invalid = c.Reason
		case transcript.Cut, transcript.Open: // a call never closed was cut off
			call.Cut = true
		}
		run.Calls = append(run.Calls, call)
	}
	if t.Finish != nil {
		run.Answer, run.Finish = t.Finish.Answer, finishOf(t.Finish.Reason)
	}
	if t.Failure != nil {
		run.Error = t.Failure.Error
	}
	return run
}

// finishOf is grading's word for how agent says a run ended.
func finishOf(r agent.Reason) grade.Finish {
	switch r {
	case agent.Answered:
		return grade.FinishAnswered
	case agent.MaxRounds:
		return grade.FinishMaxRounds
	case agent.CutOff:
		return grade.FinishCutOff
	case agent.Failed:
		return grade.FinishError
	}
	return grade.FinishCancelled
}

// Tokens estimate: a run's counters, and what its tools block costs.
type tokens struct {
	prompt, output, tools int
}

// tokensOf sums the rounds' counters, and estimates the prompt tokens the
// tools block of the first round's input costs (see toolsBlockTokens).
func tokensOf(t *transcript.Transcript) tokens {
	var n tokens
	n.prompt, n.output = t.Usage()
	if first := t.Round(1); first != nil && first.Input != nil {
		reported := 0
		if first.Stats != nil {
			reported = first.Stats.PromptTokens
		}
		n.tools = toolsBlockTokens(first.Input, reported)
	}
	return n
}

// charsPerToken is the rule of thumb for English and JSON with the BPE
// tokenizers of today's models, used when the backend counts nothing.
const charsPerToken = 4

// toolsBlockTokens estimates the prompt tokens the <tools>…</tools>
// block of input costs. No backend counts a part of the prompt, so it is
// the block's share of the prompt's characters times the prompt tokens
// the backend reported for the round; with no count, the block's
// characters over charsPerToken. 0 when no tools were offered.
func toolsBlockTokens(input *llm.Input, promptTokens int) int {
	text := input.Prompt
	if input.Mode == llm.ModeChat || text == "" {
		var all strings.Builder
		for _, m := range input.Messages {
			all.WriteString(m.Content)
		}
		text = all.String()
	}
	start := strings.Index(text, "<tools>")
	end := strings.LastIndex(text, "</tools>")
	if start < 0 || end < start || text == "" {
		return 0
	}
	block := end + len("</tools>") - start
	if promptTokens > 0 {
		return promptTokens * block / len(text)
	}
	return block / charsPerToken
}
