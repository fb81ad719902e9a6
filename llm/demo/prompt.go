package demo

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/toolscope/toolscope/streamparser"
)

// conversation is what the demo model understands of a rendered Qwen3
// prompt. It is read from the prompt text alone, as a real model would.
type conversation struct {
	tools []tool    // offered in the system prompt, in order
	today time.Time // midnight UTC; zero when the system prompt does not say
	// dialect is how the system prompt says to write calls.
	dialect streamparser.Dialect
	// request is the person's last request, without its /think switch.
	request string
	// rounds are the tool calls made for request so far and their results.
	rounds []round
	start  opening
}

// tool is a function offered in the <tools> block.
type tool struct {
	name   string
	params []string // in the schema's order; nil when it lists none
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

// offers reports whether the prompt offers a tool the model learnt as
// trained (see offered).
func (c conversation) offers(trained string) bool {
	_, ok := c.offered(trained)
	return ok
}

// offered finds the tool the model learnt as trained among those offered:
// by its name, or else by the name an MCP host gives a tool whose name two
// servers share, the server's name, '_' and the tool's name.
func (c conversation) offered(trained string) (tool, bool) {
	if t, ok := c.tool(trained); ok {
		return t, true
	}
	for _, t := range c.tools {
		if strings.HasSuffix(t.name, "_"+trained) {
			return t, true
		}
	}
	return tool{}, false
}

// tool finds an offered tool by its name.
func (c conversation) tool(name string) (tool, bool) {
	for _, t := range c.tools {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

// names pairs the parameters the model learnt for t with those t's schema
// lists: each with the one of the same name or, when the schema uses none
// of the learnt names (multiply(x, y) for multiply(a, b)), with the one in
// the same place. A parameter with no counterpart pairs with "". A schema
// that lists no parameters takes the learnt ones.
func (t tool) names() (learnt, offered []string) {
	learnt = skills[trainedName(t.name)].params
	if t.params == nil {
		return learnt, learnt
	}
	offered = make([]string, len(learnt))
	named := false
	for i, p := range learnt {
		if slices.Contains(t.params, p) {
			offered[i], named = p, true
		}
	}
	if !named {
		copy(offered, t.params)
	}
	return learnt, offered
}

// written lists k's arguments as the model writes them for the offered
// tool: the learnt parameters in their order, under the names the tool's
// schema gives them, then any others, sorted. An argument that the schema
// has no place for is left out.
func (c conversation) written(k call) []argument {
	t, _ := c.tool(k.name)
	learnt, offered := t.names()
	var args []argument
	for i, name := range offered {
		if v, ok := k.args[learnt[i]]; ok && name != "" {
			args = append(args, argument{name, v})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.args)) {
		if !slices.Contains(learnt, name) && (t.params == nil || slices.Contains(t.params, name)) {
			args = append(args, argument{name, k.args[name]})
		}
	}
	return args
}

// learnt renames the arguments of a call read from an earlier reply to
// the parameter names the model learnt for its tool, undoing written.
func (c conversation) learnt(k call) call {
	t, _ := c.tool(k.name)
	learnt, offered := t.names()
	for i, name := range offered {
		if v, ok := k.args[name]; ok && name != learnt[i] {
			delete(k.args, name)
			k.args[learnt[i]] = v
		}
	}
	return k
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
			c.dialect = readDialect(t.content)
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
			var calls []call
			for _, k := range readCalls(t.content, c.dialect, c.toolNames()) {
				calls = append(calls, c.learnt(k))
			}
			c.rounds = append(c.rounds, round{calls: calls})
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
		var sig api.Tool // whose properties keep the schema's order
		if json.Unmarshal([]byte(line), &sig) != nil || sig.Function.Name == "" {
			continue
		}
		t := tool{name: sig.Function.Name}
		if props := sig.Function.Parameters.Properties; props != nil {
			for name := range props.All() {
				t.params = append(t.params, name)
			}
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

var responseRE = regexp.MustCompile(`(?s)<tool_response>\n?(.*?)\n?</tool_response>`)

func readResponses(content string) []string {
	var out []string
	for _, m := range responseRE.FindAllStringSubmatch(content, -1) {
		out = append(out, m[1])
	}
	return out
}
