package demo

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// conversation is what the demo model understands of a rendered Qwen3
// prompt. It is read from the prompt text alone, as a real model would.
type conversation struct {
	tools []tool    // offered in the system prompt, in order
	today time.Time // midnight UTC; zero when the system prompt does not say
	// request is the person's last request, without its /think switch.
	request string
	// rounds are the tool calls made for request so far and their results.
	rounds []round
	start  opening
}

// tool is a function offered in the <tools> block.
type tool struct {
	name   string
	params map[string]bool // nil when the schema lists no properties
}

// round is one reply with tool calls and the user turn that answered them.
type round struct {
	calls     []call
	responses []string // the text of each <tool_response>, in order
}

// opening is how the reply must begin, read from the end of the prompt.
type opening int

const (
	// thinkFirst: the prompt ends with "<|im_start|>assistant\n", so the
	// model reasons inside <think> before it answers.
	thinkFirst opening = iota
	// thinkSkipped: the user turn ends with /no_think but the template
	// wrote no empty block, so the model writes one itself, as Qwen3 does.
	thinkSkipped
	// thinkWritten: the template already wrote the empty block.
	thinkWritten
)

// offers reports whether the prompt offers the named tool.
func (c conversation) offers(name string) bool {
	_, ok := c.tool(name)
	return ok
}

func (c conversation) tool(name string) (tool, bool) {
	for _, t := range c.tools {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

// turn is one <|im_start|>role … <|im_end|> block of the prompt.
type turn struct {
	role    string
	content string
	open    bool // not closed by <|im_end|>: the model writes the rest
}

const (
	thinkOn  = " /think"
	thinkOff = " /no_think"
)

// readPrompt reads a prompt rendered with the Qwen3 template.
func readPrompt(prompt string) conversation {
	var c conversation
	turns := splitTurns(prompt)
	request := -1
	for i, t := range turns {
		switch {
		case t.role == "system":
			c.tools = append(c.tools, readTools(t.content)...)
			if today := readToday(t.content); !today.IsZero() {
				c.today = today
			}
		case t.role == "user" && !isResponses(t.content):
			request = i
		}
	}
	c.start = readOpening(turns)
	if request < 0 {
		return c
	}
	c.request = strings.TrimSpace(trimSwitch(turns[request].content))
	for _, t := range turns[request+1:] {
		switch {
		case t.role == "assistant" && !t.open:
			c.rounds = append(c.rounds, round{calls: readCalls(t.content)})
		case t.role == "user":
			if len(c.rounds) == 0 {
				c.rounds = append(c.rounds, round{})
			}
			last := &c.rounds[len(c.rounds)-1]
			last.responses = append(last.responses, readResponses(t.content)...)
		}
	}
	return c
}

func splitTurns(prompt string) []turn {
	var turns []turn
	blocks := strings.Split(prompt, "<|im_start|>")
	for _, b := range blocks[1:] {
		role, rest, _ := strings.Cut(b, "\n")
		content, _, closed := strings.Cut(rest, "<|im_end|>")
		turns = append(turns, turn{role: strings.TrimSpace(role), content: content, open: !closed})
	}
	return turns
}

// readOpening tells how the reply starts from the open assistant turn at
// the end of the prompt and the switch ending the last user turn.
func readOpening(turns []turn) opening {
	if n := len(turns); n > 0 && turns[n-1].open && strings.Contains(turns[n-1].content, "</think>") {
		return thinkWritten
	}
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].role == "user" {
			if strings.HasSuffix(strings.TrimSpace(turns[i].content), strings.TrimSpace(thinkOff)) {
				return thinkSkipped
			}
			break
		}
	}
	return thinkFirst
}

func trimSwitch(s string) string {
	s = strings.TrimRight(s, " \n")
	for _, sw := range []string{thinkOn, thinkOff} {
		if t, ok := strings.CutSuffix(s, sw); ok {
			return t
		}
	}
	return s
}

var toolsBlockRE = regexp.MustCompile(`(?s)<tools>\n(.*?)\n?</tools>`)

// readTools reads the function signatures in a system prompt's <tools>
// block, one JSON object a line. A line that is not one is skipped, as a
// model would skim past it.
func readTools(system string) []tool {
	m := toolsBlockRE.FindStringSubmatch(system)
	if m == nil {
		return nil
	}
	var tools []tool
	for _, line := range strings.Split(m[1], "\n") {
		var sig struct {
			Function struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal([]byte(line), &sig) != nil || sig.Function.Name == "" {
			continue
		}
		t := tool{name: sig.Function.Name}
		for p := range sig.Function.Parameters.Properties {
			if t.params == nil {
				t.params = map[string]bool{}
			}
			t.params[p] = true
		}
		tools = append(tools, t)
	}
	return tools
}

var todayRE = regexp.MustCompile(`Today is \w+, (\d{4}-\d{2}-\d{2})`)

// readToday reads the date from the system prompt's "Today is …" line.
func readToday(system string) time.Time {
	m := todayRE.FindStringSubmatch(system)
	if m == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.DateOnly, m[1])
	if err != nil {
		return time.Time{}
	}
	return t
}

func isResponses(content string) bool {
	return strings.HasPrefix(strings.TrimSpace(content), "<tool_response>")
}

var (
	responseRE = regexp.MustCompile(`(?s)<tool_response>\n?(.*?)\n?</tool_response>`)
	callRE     = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)
	thinkRE    = regexp.MustCompile(`(?s)<think>.*?</think>`)
)

func readResponses(content string) []string {
	var out []string
	for _, m := range responseRE.FindAllStringSubmatch(content, -1) {
		out = append(out, m[1])
	}
	return out
}

// readCalls reads the <tool_call> blocks of an earlier reply, skipping
// any written while thinking. A block that does not parse still counts,
// as a call with no name, so that results keep lining up with calls.
func readCalls(content string) []call {
	content = thinkRE.ReplaceAllString(content, "")
	var calls []call
	for _, m := range callRE.FindAllStringSubmatch(content, -1) {
		var c struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		_ = json.Unmarshal([]byte(m[1]), &c) // a bad block stays a call with no name
		calls = append(calls, call{name: c.Name, args: c.Arguments})
	}
	return calls
}
