package agent

import (
	"encoding/json"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/retrieve"
)

// Type names an event. The names and the JSON field names of Event are a
// stable interface: front ends and scripts depend on them.
type Type string

const (
	RunStarted      Type = "run_started"       // Run
	RoundStarted    Type = "round_started"     // Round, Input: exactly what the model is given; StartsInThinking
	Token           Type = "token"             // Round, Text: raw model output as the parser read it, in one Region; Pending: what it holds back
	ThinkingDelta   Type = "thinking_delta"    // Round, Text, ParsedBy
	TextDelta       Type = "text_delta"        // Round, Text
	ToolCallOpened  Type = "tool_call_opened"  // Round, Call.Index
	ToolCallDelta   Type = "tool_call_delta"   // Round, Call.Index, Text: characters inside the tag
	ToolCallParsed  Type = "tool_call_parsed"  // Round, Call
	ToolCallInvalid Type = "tool_call_invalid" // Round, Call with Raw and Reason
	ToolStarted     Type = "tool_started"      // Round, Call
	ToolFinished    Type = "tool_finished"     // Round, Call, Result or Error, DurationMS, Wire
	ToolResponse    Type = "tool_response"     // Round, Text: the user turn injected into the conversation
	RoundFinished   Type = "round_finished"    // Round, Stats
	RunFinished     Type = "run_finished"      // Reason, Text: the answer, Rounds
	Error           Type = "error"             // Round (0 outside rounds), Error, Fix
)

// ToolCallInThinking reports that a round's reply ended inside thinking
// after the model wrote a call marker there (Text): a call the model
// meant to make, but wrote where it is not run. Round, Text.
const ToolCallInThinking Type = "tool_call_in_thinking"

// ToolCallCut reports a call that the reply was cut off inside, not by
// the model: a stop, a failed stream or the length limit ended the reply
// there (Reason: Cancelled, Failed or CutOff, as the run then finishes).
// The call is not run, and is not the model's mistake: Call.Reason is
// what the model is told, never a parser's complaint. Round, Call with
// Raw and Reason, Reason.
const ToolCallCut Type = "tool_call_cut"

// ToolsSelected reports which tools a run offers the model, when tool
// retrieval chose them out of many (see [Selector]): it comes right after
// RunStarted, before round 1. Selection.
const ToolsSelected Type = "tools_selected"

// Paused reports that a run in step mode waits on its Stepper (see
// [Config.Stepper]): Round, Pause.
const Paused Type = "paused"

// Edited reports what a run in step mode was told to change at a pause:
// Round, Change; StartsInThinking anew for an edited input.
const Edited Type = "edited"

// Reason is how a run finished, in RunFinished events and Result. Like
// Type, its values are a stable interface.
type Reason string

// Reasons a run finishes.
const (
	Answered  Reason = "answered"   // the model answered without calling a tool
	Returned  Reason = "tool_calls" // the model called tools the caller runs (Config.ReturnCalls)
	MaxRounds Reason = "max_rounds" // the round limit was reached
	Cancelled Reason = "cancelled"  // the caller cancelled the run
	CutOff    Reason = "cut_off"    // the model's reply reached its context or token limit
	Failed    Reason = "error"      // the backend failed; an Error event says how
)

// Event is one step of a run. Which fields are set depends on Type.
type Event struct {
	Seq   int    `json:"seq"`   // 1, 2, … within a run
	Type  Type   `json:"type"`  // what happened
	AtMS  int64  `json:"at_ms"` // milliseconds since the run started
	Round int    `json:"round,omitempty"`
	Text  string `json:"text,omitempty"`

	// Pending is what the parser holds back after a Token event's chunk:
	// the start of a tag, say, until the next chunk says whether it is one.
	Pending string `json:"pending,omitempty"`
	// Region is where a Token event's Text stands as the parser read it:
	// "text", "think" (thinking, its tags included) or "call" (a call,
	// its markers included). A chunk that stands in several regions comes
	// as one Token event per region, so a front end tints each as it is
	// with no parser of its own.
	Region   streamparser.Region `json:"region,omitempty"`
	ParsedBy string              `json:"parsed_by,omitempty"` // the backend ("ollama", "openai") when its server, not toolscope, parsed it

	Run   *RunInfo    `json:"run,omitempty"`
	Input *llm.Input  `json:"input,omitempty"`
	Call  *Call       `json:"call,omitempty"`
	Stats *RoundStats `json:"stats,omitempty"`
	// Selection is what tool retrieval chose, in ToolsSelected events.
	Selection *Selection `json:"selection,omitempty"`
	Result    string     `json:"result,omitempty"`
	Error     string     `json:"error,omitempty"`
	// Fix is what a person can do about an Error event's failure, for
	// each front end to word as its own control; nil when none is known.
	Fix *llm.Fix `json:"fix,omitempty"`
	// Pause is what a Paused event's run waits on.
	Pause *Pause `json:"pause,omitempty"`
	// Change is what an Edited event's pause changed.
	Change *Change `json:"change,omitempty"`
	// Ask is the server's request of an event of its asks (see
	// ElicitationRequested), Reply the answer it gets.
	Ask   *Ask   `json:"ask,omitempty"`
	Reply *Reply `json:"reply,omitempty"`
	// Wire holds the protocol messages a tool exchanged, such as an MCP
	// server's JSON-RPC request and response.
	Wire []tools.WireMessage `json:"wire,omitempty"`

	DurationMS float64 `json:"duration_ms,omitempty"`
	// Stopped: the person stopped the run while the tool of a ToolFinished
	// event ran; its Error says so to the model. Not a failure of the tool.
	Stopped bool   `json:"stopped,omitempty"`
	Reason  Reason `json:"reason,omitempty"`
	Rounds  int    `json:"rounds,omitempty"`

	// StartsInThinking: the input leaves the model inside <think>, so the
	// reply starts in thinking with no opening tag.
	StartsInThinking bool `json:"starts_in_thinking,omitempty"`
}

// RunInfo describes a run when it starts.
type RunInfo struct {
	llm.Info
	Message string   `json:"message"`
	Tools   []string `json:"tools"`
	Dialect string   `json:"dialect"`
	// DialectMarks is how the dialect's calls and thinking look in model
	// text, for front ends to highlight.
	DialectMarks streamparser.Description `json:"dialect_marks"`
	// Settings are every value that shaped the run, as Config.Settings
	// gave them: a JSON object, or nil when the agent was given none.
	Settings json.RawMessage `json:"settings,omitempty"`
}

// Selection is a ToolsSelected event's payload: the retriever's choice
// (query, asked and used retriever, fallback, k, the chosen tools with
// scores and whether each was kept, how many were left out), and the
// names of the tools left out, at most [MaxLeftOutNames] of them, for a
// front end to show without asking for the whole tool list.
type Selection struct {
	retrieve.Selection
	LeftOutNames []string `json:"left_out_names,omitempty"`
}

// MaxLeftOutNames bounds Selection.LeftOutNames: with thousands of tools
// every run's events would otherwise carry the whole list.
const MaxLeftOutNames = 200

// Call is a tool call of a round.
type Call struct {
	Index     int             `json:"index"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Raw       string          `json:"raw,omitempty"`
	Reason    string          `json:"reason,omitempty"` // why an invalid call cannot run
	ParsedBy  string          `json:"parsed_by"`        // "toolscope", or the backend whose server parsed it
}

// RoundStats are a round's counters. Times are in milliseconds, as
// everywhere in events; the backend's own timings are zero where it
// reports none.
type RoundStats struct {
	DoneReason   string  `json:"done_reason"` // the backend's, e.g. "stop" or "length"
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"output_tokens"`
	LoadMS       float64 `json:"load_ms"`   // loading the model
	PromptMS     float64 `json:"prompt_ms"` // reading the input
	EvalMS       float64 `json:"eval_ms"`   // writing the reply
	TotalMS      float64 `json:"total_ms"`  // the backend's whole request
	// FirstTokenMS is the time from sending the input to the first chunk,
	// as toolscope measured it.
	FirstTokenMS float64 `json:"first_token_ms"`
}

func roundStats(s llm.Stats, firstToken time.Duration) *RoundStats {
	return &RoundStats{
		DoneReason: s.DoneReason, PromptTokens: s.PromptTokens, OutputTokens: s.OutputTokens,
		LoadMS: millis(s.LoadDuration), PromptMS: millis(s.PromptDuration),
		EvalMS: millis(s.EvalDuration), TotalMS: millis(s.TotalDuration),
		FirstTokenMS: millis(firstToken),
	}
}

func millis(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
