package tools

import (
	"context"
	"encoding/json"
)

// Asker answers what a tool's server asks of its client while the tool
// runs: an MCP server's elicitation/create (a question for the person)
// and sampling/createMessage (a reply from the model). The agent puts
// one in the context of each call it runs ([WithAsker]), so that the
// asks show in the run, under the call, and are answered by the run's
// own model and person. A tool finds it with [AskerOf].
//
// An error is the server's answer as a refusal: its text says why.
type Asker interface {
	Elicit(ctx context.Context, e Elicitation) (ElicitReply, error)
	Sample(ctx context.Context, s SamplingRequest) (SamplingReply, error)
	// ElicitationCompleted tells that the server finished the URL-mode
	// elicitation of that id out of band (its notification).
	ElicitationCompleted(elicitationID string)
}

type askerKey struct{}

// WithAsker returns a context under which AskerOf finds a.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerOf is the Asker of the call ctx belongs to; nil when it has none.
func AskerOf(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}

// Elicitation modes.
const (
	ElicitForm = "form" // a form of flat fields, described by Schema
	ElicitURL  = "url"  // a link the person opens; the server hears from them there
)

// Elicitation is a server's question for the person.
type Elicitation struct {
	Server  string `json:"server"`
	Mode    string `json:"mode"` // ElicitForm or ElicitURL
	Message string `json:"message"`
	// Schema is the form's requested schema, in form mode: an object of
	// flat properties (strings, numbers, booleans, enums).
	Schema json.RawMessage `json:"schema,omitempty"`
	// URL and ElicitationID are the link and its id, in URL mode.
	URL           string `json:"url,omitempty"`
	ElicitationID string `json:"elicitation_id,omitempty"`
}

// Elicitation actions, as MCP names them.
const (
	Accept  = "accept"
	Decline = "decline"
	Cancel  = "cancel"
)

// ElicitReply is the answer to an Elicitation: Accept with the form's
// Content (none in URL mode), Decline or Cancel.
type ElicitReply struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// SamplingRequest is a server's request for a reply from the model.
type SamplingRequest struct {
	Server       string            `json:"server"`
	SystemPrompt string            `json:"system_prompt,omitempty"`
	Messages     []SamplingMessage `json:"messages"`
	MaxTokens    int               `json:"max_tokens"`
	// IncludeContext is "none" (or empty), "thisServer" or "allServers".
	IncludeContext string `json:"include_context,omitempty"`
	// ModelPreferences are the server's hints, as it sent them: shown,
	// since the run's own model answers whatever they say.
	ModelPreferences json.RawMessage `json:"model_preferences,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	StopSequences    []string        `json:"stop_sequences,omitempty"`
}

// SamplingMessage is one turn of a SamplingRequest, as text: content a
// model cannot read (an image, audio) is described in it.
type SamplingMessage struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// SamplingReply is the model's reply to a SamplingRequest.
type SamplingReply struct {
	Text  string `json:"text"`
	Model string `json:"model"`
	// StopReason is "endTurn", or "maxTokens" for a reply the token
	// limit cut.
	StopReason string `json:"stop_reason"`
}
