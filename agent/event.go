package agent

import (
	"encoding/json"
	"time"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/tools"
)

// Type names an event. The names and the JSON field names of Event are a
// stable interface: front ends and scripts depend on them.
type Type string

const (
	RunStarted      Type = "run_started"       // Run
	RoundStarted    Type = "round_started"     // Round, Input: exactly what the model is given
	Token           Type = "token"             // Round, Text: raw model output as it arrived; Pending: what the parser holds back
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
	Error           Type = "error"             // Round (0 outside rounds), Error
)

// Reasons a run finishes, in RunFinished events.
const (
	Answered  = "answered"   // the model answered without calling a tool
	MaxRounds = "max_rounds" // the round limit was reached
	Cancelled = "cancelled"  // the caller cancelled the run
	Failed    = "error"      // the backend failed; an Error event says how
)

// Event is one step of a run. Which fields are set depends on Type.
type Event struct {
	Seq   int    `json:"seq"`   // 1, 2, … within a run
	Type  Type   `json:"type"`  // what happened
	AtMS  int64  `json:"at_ms"` // milliseconds since the run started
	Round int    `json:"round,omitempty"`
	Text  string `json:"text,omitempty"`

	Pending  string `json:"pending,omitempty"`
	ParsedBy string `json:"parsed_by,omitempty"` // "ollama" when Ollama, not toolscope, parsed it

	Run    *RunInfo    `json:"run,omitempty"`
	Input  *llm.Input  `json:"input,omitempty"`
	Call   *Call       `json:"call,omitempty"`
	Stats  *RoundStats `json:"stats,omitempty"`
	Result string      `json:"result,omitempty"`
	Error  string      `json:"error,omitempty"`
	// Wire holds the protocol messages a tool exchanged, such as an MCP
	// server's JSON-RPC request and response.
	Wire []tools.WireMessage `json:"wire,omitempty"`

	DurationMS float64 `json:"duration_ms,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	Rounds     int     `json:"rounds,omitempty"`
}

// RunInfo describes a run when it starts.
type RunInfo struct {
	llm.Info
	Message string   `json:"message"`
	Tools   []string `json:"tools"`
	Dialect string   `json:"dialect"`
}

// Call is a tool call of a round.
type Call struct {
	Index     int             `json:"index"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Raw       string          `json:"raw,omitempty"`
	Reason    string          `json:"reason,omitempty"` // why an invalid call cannot run
	ParsedBy  string          `json:"parsed_by"`        // "toolscope" or "ollama"
}

// RoundStats are a round's counters.
type RoundStats struct {
	llm.Stats
	// FirstTokenMS is the time from sending the input to the first chunk.
	FirstTokenMS float64 `json:"first_token_ms"`
}

func millis(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}
