package demo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/llm"
	"github.com/toolscope/toolscope/streamparser"
)

// dialectMarkers are the markers that open calls in each dialect, as the
// agent's prompt teaches them.
var dialectMarkers = map[streamparser.Dialect]string{
	streamparser.Hermes:   "<tool_call>",
	streamparser.Marker:   ">>>CALL_FUNCTION<<<",
	streamparser.Pythonic: "<<function>>",
	streamparser.Llama3:   "<|python_tag|>",
	streamparser.Mistral:  "[TOOL_CALLS]",
	streamparser.Fenced:   "```json",
	// Qwen3-Coder's marker is Hermes's; its instructions tell them apart.
	streamparser.Qwen3Coder: "<tool_call>",
}

// parsedCall is a call as toolscope's parser reads it.
type parsedCall struct {
	name, args string // args as compact JSON
}

// parseStream feeds the chunks to toolscope's parser for dialect d, as
// the agent does, and returns the calls and the reply text outside them.
func parseStream(t *testing.T, d streamparser.Dialect, in llm.Input, chunks []string) (calls []parsedCall, text string) {
	t.Helper()
	var b strings.Builder
	emit := func(e streamparser.Event) {
		switch e.Kind {
		case streamparser.Text:
			b.WriteString(e.Text)
		case streamparser.CallInvalid:
			t.Errorf("%s: invalid call %q: %s", d, e.Call.Text, e.Call.Reason)
		case streamparser.CallParsed:
			calls = append(calls, parsedCall{e.Call.Name, string(e.Call.Arguments)})
		}
	}
	p, err := streamparser.New(streamparser.Options{Dialect: d, Tools: readPrompt(in.Prompt).toolNames(),
		Schemas: promptSchemas(t, in.Prompt), InThinking: streamparser.OpensThinking(in.Prompt)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		p.Feed(c, emit)
	}
	p.Flush(emit)
	return calls, b.String()
}

// promptSchemas reads the tools' parameter schemas from the <tools> block
// of a rendered prompt, as the agent gives them to its parser.
func promptSchemas(t *testing.T, prompt string) map[string]json.RawMessage {
	t.Helper()
	_, block, _ := strings.Cut(prompt, "<tools>\n")
	block, _, _ = strings.Cut(block, "\n</tools>")
	schemas := map[string]json.RawMessage{}
	for line := range strings.Lines(block) {
		var tool struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal([]byte(line), &tool); err != nil {
			t.Fatalf("tool line %q: %v", line, err)
		}
		schemas[tool.Function.Name] = tool.Function.Parameters
	}
	return schemas
}

func TestReadDialect(t *testing.T) {
	for _, d := range streamparser.Dialects() {
		in := render(t, d, true, offer(t, allTools...), user("hello"))
		if got := readPrompt(in.Prompt).dialect; got != d {
			t.Errorf("the %s prompt reads as %s", d, got)
		}
	}
}

// In every dialect the parser reads the demo's calls back with the names
// and arguments it writes in the default one, and finds no text besides.
func TestCallsInEveryDialect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		request string
		names   []string
	}{
		{"Cancel the standup meeting on 2026-12-01", []string{"cancel_meeting"}},
		{"Email alice@co.com and bob@co.com about the launch", []string{"send_mail", "send_mail"}},
		{"Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda", []string{"schedule_meeting", "send_mail"}},
		{"How many km is 26.2 miles?", []string{"convert_length"}},
		{"What is 15 times 27, and 2^10?", []string{"multiply", "power"}},
		// Quotes, a backslash and letters beyond ASCII must survive each
		// dialect's quoting.
		{`Email zoë@example.com about the "naïve \ brave" plan`, []string{"send_mail"}},
	}
	for _, tt := range tests {
		for _, think := range []bool{true, false} {
			calls := map[streamparser.Dialect][]parsedCall{}
			for _, d := range streamparser.Dialects() {
				in := render(t, d, think, offer(t, everyTool...), user(tt.request))
				got, text := parseStream(t, d, in, streamAll(t, in))
				if strings.TrimSpace(text) != "" {
					t.Errorf("%s %q: text %q besides the calls", d, tt.request, text)
				}
				calls[d] = got
			}
			want := calls[streamparser.Hermes]
			if len(want) != len(tt.names) {
				t.Fatalf("%q: calls %+v, want %v", tt.request, want, tt.names)
			}
			for i, name := range tt.names {
				if want[i].name != name {
					t.Errorf("%q: call %d is %s, want %s", tt.request, i, want[i].name, name)
				}
			}
			for d, got := range calls {
				if !slices.Equal(got, want) {
					t.Errorf("%s %q: calls %+v, want %+v as in hermes", d, tt.request, got, want)
				}
			}
		}
	}
}

// A reply without calls holds no marker in any dialect, and the answer
// after the calls reads them back in the dialect they were written in.
func TestRunsInEveryDialect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		request string
		calls   int
		answer  string
	}{
		{"hello", 0, "Hello! I'm toolscope's offline demo model"},
		{"What is 15 times 27?", 1, "15 times 27 is 405."},
		{"Email alice@co.com and bob@co.com about the launch", 2,
			"Your email to alice@co.com has been sent (message id msg-bec787). Your email to bob@co.com has been sent (message id msg-257036)."},
		{"What is 10 divided by 0?", 1, "I couldn't work out 10 divided by 0: cannot divide 10 by zero."},
	}
	for _, d := range streamparser.Dialects() {
		for _, tt := range tests {
			r := runAgent(t, d, offer(t, everyTool...), tt.request)
			if len(r.calls) != tt.calls {
				t.Errorf("%s %q: calls %+v, want %d", d, tt.request, r.calls, tt.calls)
			}
			if !strings.HasPrefix(r.result.Text, tt.answer) {
				t.Errorf("%s %q: answer %q, want %q", d, tt.request, r.result.Text, tt.answer)
			}
			if strings.Contains(r.result.Text, dialectMarkers[d]) {
				t.Errorf("%s %q: the answer %q holds a call marker", d, tt.request, r.result.Text)
			}
		}
	}
}

// In Pythonic, values are Python literals, whatever JSON they decoded from.
func TestPythonLiterals(t *testing.T) {
	tests := []struct {
		value any
		want  string
	}{
		{nil, "None"},
		{true, "True"},
		{false, "False"},
		{json.Number("26.20"), "26.20"},
		{"say \"hi\"\n\tto zoë \\ \x01", `"say \"hi\"\n\tto zoë \\ \u0001"`},
		{"True", `"True"`},
		{[]string{"a@b.co"}, `["a@b.co"]`},
		{[]any{json.Number("1"), nil, map[string]any{"k": false, "a": "x"}}, `[1, None, {"a": "x", "k": False}]`},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeCalls(&b, streamparser.Pythonic, []call{{name: "f"}}, func(call) []argument { return []argument{{"v", tt.value}} })
		if want := "<<function>>f(v=" + tt.want + ")"; b.String() != want {
			t.Errorf("%#v is written %s, want %s", tt.value, b.String(), want)
		}
	}
}

// Whatever the arguments hold, each dialect's parser reads back what the
// demo wrote, including each dialect's own closing markers inside strings;
// but a Qwen3-Coder value cannot hold </tool_call>, which ends its call
// wherever it stands, and its values are typed by the tool's schema.
func TestArgumentsRoundTrip(t *testing.T) {
	for _, d := range streamparser.Dialects() {
		closer := " </tool_call>"
		if d == streamparser.Qwen3Coder {
			closer = ""
		}
		roundTrip(t, d, closer)
	}
}

// roundTrip writes two calls in d, whose text argument ends with closer,
// and reads them back.
func roundTrip(t *testing.T, d streamparser.Dialect, closer string) {
	t.Helper()
	args := []argument{
		{"text", "quotes \" ' and \\ backslash, (parens), [brackets], {braces}," + closer + " ``` ]"},
		{"lines", "one\ntwo\r\n\tthree \x01 \u2028 ☕ 🎉"},
		{"list", []any{json.Number("-1.5e3"), true, nil, []any{}, map[string]any{"nested": []string{"x"}}}},
		{"flag", false},
		{"none", nil},
	}
	byName := map[string]any{}
	for _, a := range args {
		byName[a.name] = a.value
	}
	want, err := json.Marshal(byName)
	if err != nil {
		t.Fatal(err)
	}
	calls := []call{{name: "tool"}, {name: "tool"}}
	schemas := map[string]json.RawMessage{"tool": json.RawMessage(`{"properties": {"text": {"type": "string"}, "lines": {"type": "string"},
		"list": {"type": "array"}, "flag": {"type": "boolean"}, "none": {"type": "null"}}}`)}
	var b strings.Builder
	writeCalls(&b, d, calls, func(call) []argument { return args })
	var got []*streamparser.Call
	p, err := streamparser.New(streamparser.Options{Dialect: d, Tools: []string{"tool"}, Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	emit := func(e streamparser.Event) {
		if e.Kind == streamparser.CallParsed || e.Kind == streamparser.CallInvalid {
			got = append(got, e.Call)
		}
	}
	p.Feed(b.String(), emit)
	p.Flush(emit)
	if len(got) != len(calls) {
		t.Errorf("%s: %d calls in %s", d, len(got), b.String())
		return
	}
	for _, c := range got {
		if c.Reason != "" || c.Name != "tool" || !sameJSON(t, c.Arguments, want) {
			t.Errorf("%s: %s reads as %s %s (%s)", d, b.String(), c.Name, c.Arguments, c.Reason)
		}
	}
}

func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return jsonText(x) == jsonText(y)
}
