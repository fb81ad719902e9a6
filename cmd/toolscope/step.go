package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
)

// terminalStepper pauses a chat run (--step) and reads what to do from
// the chat's own input, one line an answer: Enter goes on, "e TEXT"
// replaces what the run waits on, "f TEXT" fakes a tool's result, "x
// TEXT" its error, "s" skips a call.
type terminalStepper struct {
	lines <-chan string
	out   io.Writer
}

// stepHelp is the prompt at each kind of pause.
var stepHelp = map[agent.Point]string{
	agent.AtInput:    "[Enter] send, e TEXT: replace the input (a raw prompt, \\n for a new line; in chat mode a JSON list of messages)",
	agent.AtCall:     "[Enter] run, e {JSON}: replace the arguments, f TEXT: fake the result, x TEXT: fake an error, s: skip",
	agent.AtResponse: "[Enter] send, e TEXT: replace the response (\\n for a new line)",
}

// Step implements agent.Stepper.
func (s terminalStepper) Step(ctx context.Context, p agent.Pause) agent.Edit {
	fmt.Fprintln(s.out, describePause(p))
	for {
		fmt.Fprintf(s.out, "%s\nstep> ", stepHelp[p.At])
		select {
		case <-ctx.Done():
			return agent.Edit{}
		case line, ok := <-s.lines:
			if !ok {
				return agent.Edit{}
			}
			e, err := readEdit(p, line)
			if err == nil {
				err = p.Check(e)
			}
			if err == nil {
				return e
			}
			fmt.Fprintln(s.out, err)
		}
	}
}

// describePause says what the run waits on; a prompt by its end, which
// is what the model reads last.
func describePause(p agent.Pause) string {
	switch p.At {
	case agent.AtInput:
		if p.Input.Mode == llm.ModeChat {
			return fmt.Sprintf("(paused before the model call of round %d: %d messages)", p.Round, len(p.Input.Messages))
		}
		tail := p.Input.Prompt[max(0, len(p.Input.Prompt)-300):]
		return fmt.Sprintf("(paused before the model call of round %d; the prompt ends:)\n%s", p.Round, strings.ToValidUTF8(tail, ""))
	case agent.AtCall:
		return fmt.Sprintf("(paused before call %d: %s %s)", p.Call.Index, p.Call.Name, p.Call.Arguments)
	}
	return fmt.Sprintf("(paused before the responses go back:)\n%s", p.Response)
}

// readEdit reads one answer at p.
func readEdit(p agent.Pause, line string) (agent.Edit, error) {
	cmd, text, _ := strings.Cut(strings.TrimSpace(line), " ")
	unescaped := strings.ReplaceAll(text, `\n`, "\n")
	switch {
	case cmd == "":
		return agent.Edit{}, nil
	case cmd == "s":
		return agent.Edit{Skip: true}, nil
	case cmd == "f":
		return agent.Edit{Result: &unescaped}, nil
	case cmd == "x" && strings.TrimSpace(text) == "":
		// An empty error is no edit at all: the tool would run.
		return agent.Edit{}, errors.New("x needs the error's text: x TEXT")
	case cmd == "x":
		return agent.Edit{Error: &unescaped}, nil
	case cmd == "e" && p.At == agent.AtCall:
		return agent.Edit{Arguments: json.RawMessage(text)}, nil
	case cmd == "e" && p.At == agent.AtResponse:
		return agent.Edit{Response: &unescaped}, nil
	case cmd == "e" && p.Input.Mode == llm.ModeChat:
		in := *p.Input
		if err := json.Unmarshal([]byte(text), &in.Messages); err != nil {
			return agent.Edit{}, fmt.Errorf("not a JSON list of messages: %v", err)
		}
		return agent.Edit{Input: &in}, nil
	case cmd == "e":
		in := *p.Input
		in.Prompt = unescaped
		return agent.Edit{Input: &in}, nil
	}
	return agent.Edit{}, fmt.Errorf("%q is not an answer here", cmd)
}
