package agent

import (
	"errors"
	"slices"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// ConversationAfter rebuilds, from a finished run's events alone, the
// conversation the run left behind: what a follow-up to it continues, for
// a run whose conversation is no longer held (one read back from a
// history). It is the last round's input, then the model's reply to it as
// Run kept it (the raw output parsed again in the run's dialect, thinking
// apart), the round's tool responses, and the note that closes a run that
// ended without an answer. Called lists the tools the run called; those of
// the runs before it are not in its events.
//
// The system prompt stays first, for the next run's agent to write anew,
// and a caller's own instructions (Conversation.System, an OpenAI client's
// system message) are not in the events: the agent's are used. Of a run in
// step mode, the last round's edited input or call arguments are not
// replayed: the round is rebuilt as it was prepared and written; edited
// tool responses are, as the model read them.
func ConversationAfter(events []Event) (*Conversation, error) {
	var (
		info     *RunInfo
		last     *Event // the last round's RoundStarted
		finished *Event
	)
	for i := range events {
		e := &events[i]
		switch e.Type {
		case RunStarted:
			info = e.Run
		case RoundStarted:
			last = e
		case RunFinished:
			finished = e
		}
	}
	switch {
	case finished == nil:
		return nil, errors.New("the run has not finished: its conversation is still growing")
	case info == nil || last == nil || last.Input == nil:
		return nil, errors.New("the run ended before its first round: its conversation was never sent to the model")
	}
	dialect, err := streamparser.ParseDialect(info.Dialect)
	if err != nil {
		return nil, err
	}
	conv := &Conversation{Messages: slices.Clone(last.Input.Messages), Called: CalledBefore(events, last.Round+1)}
	round := roundEvents(events, last.Round)
	r, err := replayReply(round, streamparser.Options{InThinking: last.StartsInThinking, Dialect: dialect, Tools: info.Tools})
	if err != nil {
		return nil, err
	}
	if msg := r.message(); msg.Content != "" || msg.Thinking != "" {
		conv.Messages = append(conv.Messages, msg)
	}
	for _, e := range round {
		if e.Type == ToolResponse {
			conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleUser, Content: e.Text})
		}
	}
	if note, ok := endings[finished.Reason]; ok {
		conv.Messages = append(conv.Messages, llm.Message{Role: llm.RoleAssistant, Content: note})
	}
	return conv, nil
}

// CalledBefore names the tools a run called before its round, first
// called first: a conversation built from the run keeps them, so that
// tool retrieval keeps offering them.
func CalledBefore(events []Event, round int) []string {
	var called []string
	for _, e := range events {
		if e.Type == ToolStarted && e.Round < round && e.Call != nil && !slices.Contains(called, e.Call.Name) {
			called = append(called, e.Call.Name)
		}
	}
	return called
}

// roundEvents returns the events of one round.
func roundEvents(events []Event, round int) []Event {
	var out []Event
	for _, e := range events {
		if e.Round == round && e.Type != RunFinished && e.Type != Error {
			out = append(out, e)
		}
	}
	return out
}

// replayReply rebuilds a round's reply as the run kept it: the raw output
// of its Token events parsed again, which gives the same text, thinking
// and calls whatever the chunks were, and what the model's server parsed
// itself, in the order it came.
func replayReply(round []Event, opts streamparser.Options) (*reply, error) {
	rep := &reply{}
	parser, err := streamparser.New(opts)
	if err != nil {
		return nil, err
	}
	onEvent := func(pe streamparser.Event) {
		switch pe.Kind {
		case streamparser.Text:
			rep.content.WriteString(pe.Text)
		case streamparser.Thinking:
			rep.thinking.WriteString(pe.Text)
		case streamparser.CallParsed, streamparser.CallInvalid:
			rep.content.WriteString(pe.Call.Text)
		}
	}
	for _, e := range round {
		switch {
		case e.Type == Token:
			parser.Feed(e.Text, onEvent)
		case e.Type == ThinkingDelta && byServer(e):
			rep.thinking.WriteString(e.Text)
		case e.Type == ToolCallParsed && byServer(e) && e.Call != nil:
			_, text := trainedCall(e.Call.Name, e.Call.Arguments)
			rep.content.WriteString(text)
		}
	}
	parser.Flush(onEvent)
	return rep, nil
}

// byServer says the model's server, not toolscope, parsed e out of the
// reply: it never passed through the Token events.
func byServer(e Event) bool { return e.ParsedBy != "" && e.ParsedBy != "toolscope" }
