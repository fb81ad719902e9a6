// Package llm puts model backends behind one interface. A backend turns a
// conversation into the exact input its model reads (Prepare) and streams
// the model's raw reply back chunk by chunk (Stream). Backends know nothing
// about tools or screens: tool calls are plain text to them, parsed later
// by package [github.com/toolscope/toolscope/streamparser].
//
// # Backends
//
// A [Backend] has three methods. [Backend.Info] describes it for people.
// [Backend.Prepare] renders a [Request], the [Message] list with the
// reasoning and [Sampling] asked for, into the [Input] the model will be
// given: in [ModeRaw] the prompt text itself, special tokens included, in
// [ModeChat] the messages a server renders. [Backend.Stream] sends that
// Input and calls back with each [Chunk] of the reply, then returns the
// reply's [Stats]. toolscope has three: package
// [github.com/toolscope/toolscope/llm/ollama] for a local Ollama,
// [github.com/toolscope/toolscope/llm/openai] for any server of the OpenAI
// API, and [github.com/toolscope/toolscope/llm/demo], the offline model.
//
// # Writing a backend
//
// Stream calls its callback for each chunk, in order, and stops the
// model's work and returns as soon as ctx ends or the callback returns an
// error. A reply cut off by the model's length limit reports
// Stats.DoneReason [DoneLength]. Prepare only renders: it does not run the
// model, so a caller can show the Input, let a person edit it (step mode)
// or record it before Stream sends it. The Example named backend is the
// smallest Backend there is, a ChatML echo; demo.Model's Example streams a
// reply of the offline model.
//
// # Errors
//
// A failure a person can act on is an [*Error]: what went wrong (Problem)
// and what would help (a [Fix]: a step to take, or a [Setting] to change)
// are kept apart, so that each front end words the fix for its own user
// with [Fix.Text], the terminal as a flag and the page as the control it
// names. See the Example of [Fix.Text].
package llm

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Thinking is the reasoning the model wrote before Content, kept apart
	// so that templates can drop it from earlier turns as the model
	// family was trained to see them.
	Thinking string `json:"thinking,omitempty"`
}

// Request is what the caller wants the model to see.
type Request struct {
	Messages []Message
	// Think asks for reasoning: nil lets the backend decide (on where the
	// model can think), true or false forces it.
	Think *bool
	// Options tune how the model writes its reply; nil keeps the
	// server's defaults for all of them.
	Options *Sampling
}

// Sampling tunes how a model picks its tokens and where its reply ends, as
// OpenAI's and Ollama's APIs name them. A nil field (or an empty Stop)
// keeps the server's default, which for Ollama is the model's own
// (its Modelfile's parameters).
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	// Stop ends the reply where the model writes one of these strings,
	// which the reply leaves out. Backends add the stop strings their raw
	// template needs, so that these never replace them.
	Stop []string `json:"stop,omitempty"`
	// Seed makes sampling repeatable on servers that honour it.
	Seed *int64 `json:"seed,omitempty"`
	// MaxTokens bounds the reply's length in tokens; a reply cut by it
	// ends with Stats.DoneReason DoneLength.
	MaxTokens *int `json:"max_tokens,omitempty"`
}

// StopWith returns the stop strings to send: base, those a backend needs
// for its own template, then s's that base lacks. A server's stop list
// replaces its defaults rather than adding to them, so a backend that
// sends s.Stop must send its own with it. s may be nil.
func (s *Sampling) StopWith(base []string) []string {
	stop := slices.Clone(base)
	if s == nil {
		return stop
	}
	for _, x := range s.Stop {
		if !slices.Contains(stop, x) {
			stop = append(stop, x)
		}
	}
	return stop
}

// Mode is how a backend gives the model its input.
type Mode string

// Modes of an Input.
const (
	ModeRaw  Mode = "raw"  // the backend sends Prompt verbatim
	ModeChat Mode = "chat" // the backend sends Messages and the server renders them
)

// Input is exactly what a model will be given for one reply.
type Input struct {
	Mode     Mode      `json:"mode"`
	Messages []Message `json:"messages"`
	// Prompt is the rendered text, special tokens included, in raw mode.
	Prompt string `json:"prompt,omitempty"`
	// Think tells whether reasoning was asked for.
	Think bool `json:"think"`
	// Options are the Request's, sent with the input: they do not change
	// what the model reads, but they change what it writes, and Stream
	// has only the Input to go by. nil when the backend honours none
	// (the demo model) or none were asked for.
	Options *Sampling `json:"options,omitempty"`
}

// Chunk is one piece of a streamed reply.
type Chunk struct {
	// Content is raw model text, to be parsed by the caller.
	Content string
	// Thinking and ToolCalls are filled only when the server parsed the
	// reply itself (Ollama's chat API does so for some model families).
	Thinking  string
	ToolCalls []ToolCall
}

// ToolCall is a call that the server, not toolscope, parsed.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// DoneLength is the Stats.DoneReason of a reply cut off by the model's
// context or token limit, in Ollama's words and OpenAI's alike.
const DoneLength = "length"

// Stats are the counters a backend reports when a reply is done.
// Durations are in nanoseconds in JSON, as Ollama reports them.
type Stats struct {
	DoneReason     string        `json:"done_reason"`
	PromptTokens   int           `json:"prompt_tokens"`
	OutputTokens   int           `json:"output_tokens"`
	LoadDuration   time.Duration `json:"load_duration"`
	PromptDuration time.Duration `json:"prompt_duration"`
	EvalDuration   time.Duration `json:"eval_duration"`
	TotalDuration  time.Duration `json:"total_duration"`
}

// Info describes a backend for people: logs, banners, the page.
type Info struct {
	Backend string `json:"backend"` // "ollama", "openai" or "demo"
	Model   string `json:"model"`
	Mode    Mode   `json:"mode"`
	// Template names the chat template toolscope renders raw prompts
	// with when the server does not publish its own, as an
	// OpenAI-compatible one does not: a built-in name such as "qwen3", or
	// a file's path. Empty when the server's own template is used.
	Template string `json:"template,omitempty"`
	// BaseURL is the API root of an OpenAI-compatible server, e.g.
	// "http://127.0.0.1:8000/v1", which people need to tell one such
	// server from another. Empty for the other backends.
	BaseURL string `json:"base_url,omitempty"`
	// Demo is true for the scripted offline model, which the UI must
	// always label as such.
	Demo bool `json:"demo"`
}

// Backend is a model that toolscope can talk to.
type Backend interface {
	Info() Info
	// Prepare renders what the model will read for req.
	Prepare(ctx context.Context, req Request) (Input, error)
	// Stream sends in to the model and calls fn for each chunk of the
	// reply, in order. It returns when the reply is done, when fn returns
	// an error, or when ctx ends, and it stops the model's work then.
	Stream(ctx context.Context, in Input, fn func(Chunk) error) (Stats, error)
}
