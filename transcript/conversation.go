package transcript

import (
	"errors"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// Conversation rebuilds, from a finished run's events alone, the
// conversation the run left behind: what a follow-up to it continues, for
// a run whose conversation is no longer held (one read back from a
// history). It is the last round's input, then the model's reply to it as
// agent.Run kept it (the raw output parsed again in the run's dialect,
// thinking apart), the round's tool responses, and the note that closes a
// run that ended without an answer. Called lists the tools the run
// called; those of the runs before it are not in its events.
//
// The system prompt stays first, for the next run's agent to write anew,
// and a caller's own instructions (Conversation.System, an OpenAI client's
// system message) are not in the events: the agent's are used. Of a run in
// step mode, the last round's edited input or call arguments are not
// replayed: the round is rebuilt as it was prepared and written; edited
// tool responses are, as the model read them.
func Conversation(events []agent.Event) (*agent.Conversation, error) {
	t := New()
	var last []agent.Event // the events of the last round started
	for _, e := range events {
		t.Add(e)
		switch {
		case e.Type == agent.RoundStarted:
			last = last[:0]
		case e.Round > 0 && e.Round == len(t.Rounds):
			last = append(last, e)
		}
	}
	round := t.Last()
	switch {
	case t.Finish == nil:
		return nil, errors.New("the run has not finished: its conversation is still growing")
	case t.Run == nil || round == nil || round.Input == nil:
		return nil, errors.New("the run ended before its first round: its conversation was never sent to the model")
	}
	dialect, err := streamparser.ParseDialect(t.Run.Dialect)
	if err != nil {
		return nil, err
	}
	conv := &agent.Conversation{Messages: slices.Clone(round.Input.Messages), Called: t.CalledBefore(round.Number + 1)}
	msg, err := replay(last, streamparser.Options{InThinking: round.StartsInThinking, Dialect: dialect, Tools: t.Run.Tools})
	if err != nil {
		return nil, err
	}
	if msg.Content != "" || msg.Thinking != "" {
		conv.Messages = append(conv.Messages, msg)
	}
	for _, response := range round.Responses {
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: response})
	}
	if note := agent.EndingNote(t.Finish.Reason); note != "" {
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Content: note})
	}
	return conv, nil
}

// replay rebuilds a round's reply as the run kept it: the raw output of
// its Token events parsed again, which gives the same text, thinking and
// calls whatever the chunks were, and what the model's server parsed
// itself, in the order it came. The order is why this reads the round's
// events rather than its Round: a server's call stands between the texts
// around it.
func replay(round []agent.Event, opts streamparser.Options) (llm.Message, error) {
	var content, thinking strings.Builder
	parser, err := streamparser.New(opts)
	if err != nil {
		return llm.Message{}, err
	}
	onEvent := func(pe streamparser.Event) {
		switch pe.Kind {
		case streamparser.Text:
			content.WriteString(pe.Text)
		case streamparser.Thinking:
			thinking.WriteString(pe.Text)
		case streamparser.CallParsed, streamparser.CallInvalid:
			content.WriteString(pe.Call.Text)
		}
	}
	for _, e := range round {
		switch {
		case e.Type == agent.Token:
			parser.Feed(e.Text, onEvent)
		case e.Type == agent.ThinkingDelta && byServer(e):
			thinking.WriteString(e.Text)
		case e.Type == agent.ToolCallParsed && byServer(e) && e.Call != nil:
			content.WriteString(agent.TrainedCall(e.Call.Name, e.Call.Arguments))
		}
	}
	parser.Flush(onEvent)
	return llm.Message{Role: llm.RoleAssistant, Content: strings.TrimSpace(content.String()), Thinking: strings.TrimSpace(thinking.String())}, nil
}

// byServer says the model's server, not toolscope, parsed e out of the
// reply: it never passed through the Token events.
func byServer(e agent.Event) bool { return e.ParsedBy != "" && e.ParsedBy != "toolscope" }
