package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tools"
)

// asked says what an MCP server asked during a call, and how it was
// answered: live, or in a replay.
func (r *Renderer) asked(e agent.Event) {
	a := e.Ask
	switch e.Type {
	case agent.ElicitationRequested:
		el := a.Elicitation
		if el.Mode == tools.ElicitURL {
			fmt.Fprintf(r.Log, "MCP server %s asks you to open %s: %s\n", printable(a.Server), printable(el.URL), oneLine(el.Message))
		} else {
			fmt.Fprintf(r.Log, "MCP server %s asks: %s\n", printable(a.Server), oneLine(el.Message))
		}
	case agent.ElicitationAnswered:
		if e.Error != "" {
			fmt.Fprintf(r.Log, "  the server is refused: %s\n", printable(e.Error))
			return
		}
		line := "  answered: " + e.Reply.Action
		if len(e.Reply.Content) > 0 {
			content, _ := json.Marshal(e.Reply.Content)
			line += " " + string(content)
		}
		if e.Reply.Note != "" {
			line += " (" + e.Reply.Note + ")"
		}
		fmt.Fprintln(r.Log, printable(line))
	case agent.ElicitationCompleted:
		fmt.Fprintln(r.Log, "  the server says the link's task is done")
	case agent.SamplingRequested:
		s := a.Sampling
		fmt.Fprintf(r.Log, "MCP server %s asks the model (sampling, %d messages, at most %d tokens)\n", printable(a.Server), len(s.Messages), s.GrantedTokens)
	case agent.SamplingFinished:
		fmt.Fprintf(r.Log, "  the model answers: %s\n", oneLine(a.Sampling.Answer))
	case agent.SamplingAnswered:
		switch {
		case e.Error != "":
			fmt.Fprintf(r.Log, "  the server is refused: %s\n", printable(e.Error))
		case e.Reply.Answer != nil && *e.Reply.Answer != a.Sampling.Answer:
			fmt.Fprintf(r.Log, "  sent back, edited: %s\n", oneLine(*e.Reply.Answer))
		}
	}
}

// Answerer asks the person at the terminal what MCP servers ask during a
// chat's tool calls (agent.Answerer), reading the answers from Lines, one
// a line: a form's fields one by one, a link to open, a sampling reply
// to approve in step mode. Out is where it asks.
type Answerer struct {
	Lines <-chan string
	Out   io.Writer
}

// Answer implements agent.Answerer.
func (t Answerer) Answer(ctx context.Context, a agent.Ask) agent.Reply {
	if a.Kind == agent.AskSampling {
		return t.approve(ctx, a)
	}
	el := a.Elicitation
	if el.Mode == tools.ElicitURL {
		for {
			line, ok := t.read(ctx, "[o] open it and go on (the server hears from you there), d: decline, c: cancel\nask> ")
			switch {
			case !ok:
				return agent.Reply{Action: tools.Cancel}
			case line == "o":
				fmt.Fprintf(t.Out, "open %s in your browser\n", printable(el.URL))
				return agent.Reply{Action: tools.Accept}
			case line == "d":
				return agent.Reply{Action: tools.Decline}
			case line == "c":
				return agent.Reply{Action: tools.Cancel}
			}
		}
	}
	line, ok := t.read(ctx, "[Enter] fill in the form, d: decline, c: cancel\nask> ")
	switch {
	case !ok || line == "c":
		return agent.Reply{Action: tools.Cancel}
	case line == "d":
		return agent.Reply{Action: tools.Decline}
	}
	return t.fill(ctx, a)
}

// fill asks each field of a's form in the schema's order, and sends the
// form once every field is answered.
func (t Answerer) fill(ctx context.Context, a agent.Ask) agent.Reply {
	var schema struct {
		Properties map[string]field `json:"properties"`
		Required   []string         `json:"required"`
	}
	_ = json.Unmarshal(a.Elicitation.Schema, &schema) // checked by the SDK
	content := map[string]any{}
	for _, name := range tools.PropertyOrder(a.Elicitation.Schema) {
		f := schema.Properties[name]
		required := slices.Contains(schema.Required, name)
		for {
			line, ok := t.read(ctx, f.prompt(name, required))
			if !ok {
				return agent.Reply{Action: tools.Cancel}
			}
			v, set, err := f.value(line, required)
			if err == nil && set {
				err = a.CheckField(name, v)
			}
			if err == nil {
				if set {
					content[name] = v
				}
				break
			}
			fmt.Fprintln(t.Out, printable(err.Error())) // it may quote the schema: server text
		}
	}
	return agent.Reply{Action: tools.Accept, Content: content}
}

// approve asks the person to send a sampling answer back (step mode).
func (t Answerer) approve(ctx context.Context, a agent.Ask) agent.Reply {
	line, ok := t.read(ctx, "[Enter] send the answer back, e TEXT: send TEXT instead (\\n for a new line), d: decline\nask> ")
	cmd, text, _ := strings.Cut(line, " ")
	switch {
	case !ok || cmd == "d":
		return agent.Reply{Action: tools.Decline}
	case cmd == "e":
		text = strings.ReplaceAll(text, `\n`, "\n")
		return agent.Reply{Action: tools.Accept, Answer: &text}
	}
	return agent.Reply{Action: tools.Accept}
}

// read asks prompt and returns the next line, trimmed; false once ctx
// ends or the input does.
func (t Answerer) read(ctx context.Context, prompt string) (string, bool) {
	fmt.Fprint(t.Out, prompt)
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.Out)
		return "", false
	case line, ok := <-t.Lines:
		return strings.TrimSpace(line), ok
	}
}

// field is a form field's schema, as the terminal asks it.
type field struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Format      string   `json:"format"`
	Enum        []string `json:"enum"`
	OneOf       []choice `json:"oneOf"`
	Items       *struct {
		Enum  []string `json:"enum"`
		AnyOf []choice `json:"anyOf"`
	} `json:"items"`
	Minimum *float64 `json:"minimum"`
	Maximum *float64 `json:"maximum"`
	Default any      `json:"default"`
}

// choice is a titled enum's value.
type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// choices are the values the field takes, with their titles, when it
// is an enum (or a list of them).
func (f field) choices() []choice {
	enum, titled := f.Enum, f.OneOf
	if f.Items != nil {
		enum, titled = f.Items.Enum, f.Items.AnyOf
	}
	if len(titled) > 0 {
		return titled
	}
	var cs []choice
	for _, v := range enum {
		cs = append(cs, choice{Const: v, Title: v})
	}
	return cs
}

func (f field) prompt(name string, required bool) string {
	label := name
	if f.Title != "" {
		label = f.Title
	}
	var notes []string
	if f.Description != "" {
		notes = append(notes, f.Description)
	}
	kind := f.Type
	if f.Format != "" {
		kind += ", " + f.Format
	}
	if f.Minimum != nil || f.Maximum != nil {
		kind += fmt.Sprintf(", %v to %v", bound(f.Minimum), bound(f.Maximum))
	}
	notes = append(notes, kind)
	if cs := f.choices(); len(cs) > 0 {
		var list []string
		for i, c := range cs {
			list = append(list, fmt.Sprintf("%d=%s", i+1, c.Title))
		}
		how := "one of "
		if f.Type == "array" {
			how = "any of, by commas: "
		}
		notes = append(notes, how+strings.Join(list, ", "))
	}
	if f.Default != nil {
		notes = append(notes, fmt.Sprintf("Enter for %v", f.Default))
	} else if required {
		notes = append(notes, "required")
	}
	return printable(fmt.Sprintf("  %s (%s): ", label, strings.Join(notes, "; ")))
}

func bound(n *float64) string {
	if n == nil {
		return "…"
	}
	return strconv.FormatFloat(*n, 'g', -1, 64)
}

// value reads line as the field's value; set is false for a field left
// out.
func (f field) value(line string, required bool) (v any, set bool, err error) {
	if line == "" {
		switch {
		case f.Default != nil:
			return f.Default, true, nil
		case required:
			return nil, false, fmt.Errorf("this field is required")
		}
		return nil, false, nil
	}
	pick := func(s string) (string, error) {
		cs := f.choices()
		for i, c := range cs {
			if s == c.Const || s == strconv.Itoa(i+1) || strings.EqualFold(s, c.Title) {
				return c.Const, nil
			}
		}
		return "", fmt.Errorf("%q is not one of the choices", s)
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, fmt.Errorf("answer y or n")
	case "number", "integer":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a number", line)
		}
		return n, true, nil
	case "array":
		var picked []any
		for _, s := range strings.Split(line, ",") {
			c, err := pick(strings.TrimSpace(s))
			if err != nil {
				return nil, false, err
			}
			picked = append(picked, c)
		}
		return picked, true, nil
	}
	if len(f.choices()) > 0 {
		c, err := pick(line)
		return c, err == nil, err
	}
	return line, true, nil
}
