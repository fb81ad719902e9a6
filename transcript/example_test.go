package transcript_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/transcript"
)

// A run that calls one tool and answers, folded as it streams.
func Example() {
	call := &agent.Call{Index: 0, Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`), ParsedBy: "toolscope"}
	events := []agent.Event{
		{Type: agent.RunStarted, Run: &agent.RunInfo{Tools: []string{"get_weather"}, Dialect: "hermes"}},
		{Type: agent.RoundStarted, Round: 1, Input: &llm.Input{}},
		{Type: agent.Token, Round: 1, Text: "Checking.", Region: streamparser.TextRegion},
		{Type: agent.TextDelta, Round: 1, Text: "Checking."},
		{Type: agent.ToolCallOpened, Round: 1, Call: &agent.Call{Index: 0}},
		{Type: agent.ToolCallParsed, Round: 1, Call: call},
		{Type: agent.RoundFinished, Round: 1, Stats: &agent.RoundStats{DoneReason: "stop", PromptTokens: 300, OutputTokens: 20}},
		{Type: agent.ToolStarted, Round: 1, Call: call},
		{Type: agent.ToolFinished, Round: 1, Call: call, Result: `{"temp_c":4}`, DurationMS: 2},
		{Type: agent.ToolResponse, Round: 1, Text: "<tool_response>\n{\"temp_c\":4}\n</tool_response>"},
		{Type: agent.RoundStarted, Round: 2, Input: &llm.Input{}},
		{Type: agent.TextDelta, Round: 2, Text: "It is 4 °C in Oslo."},
		{Type: agent.RoundFinished, Round: 2, Stats: &agent.RoundStats{DoneReason: "stop", PromptTokens: 340, OutputTokens: 9}},
		{Type: agent.RunFinished, Reason: agent.Answered, Text: "It is 4 °C in Oslo.", Rounds: 2},
	}
	t := transcript.New()
	for _, e := range events {
		t.Add(e)
		if e.Type == agent.ToolCallParsed {
			fmt.Printf("round %d said %q, then called %s\n", e.Round, t.Round(e.Round).Text(), t.Round(e.Round).Call(0).Name)
		}
	}
	for _, c := range t.Calls() {
		fmt.Printf("%s(%s) = %s\n", c.Name, c.RanWith, c.Result)
	}
	prompt, output := t.Usage()
	fmt.Printf("%s after %d rounds, %d+%d tokens: %s\n", t.Finish.Reason, len(t.Rounds), prompt, output, t.Finish.Answer)
	// Output:
	// round 1 said "Checking.", then called get_weather
	// get_weather({"city":"Oslo"}) = {"temp_c":4}
	// answered after 2 rounds, 640+29 tokens: It is 4 °C in Oslo.
}
