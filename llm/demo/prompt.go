package demo

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
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
	// earlier is what the turns before the request said.
	earlier earlier
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

// byPosition maps each parameter of t to the operand the model learnt in
// the same place (see skill.operands), for a schema that names none of
// them: multiply(x, y) for multiply(a, b) takes the first number as x.
// It is nil when the model can go by name.
func (t tool) byPosition() map[string]string {
	operands := skills[trainedName(t.name)].operands
	if t.params == nil || slices.ContainsFunc(operands, func(o string) bool { return slices.Contains(t.params, o) }) {
		return nil
	}
	learnt := make(map[string]string, len(operands))
	for i, p := range t.params[:min(len(t.params), len(operands))] {
		learnt[p] = operands[i]
	}
	return learnt
}

// place is where an argument goes in a call of the offered tool.
type place struct {
	learnt  string // the name the model fills it under, a key of call.args
	offered string // the name the tool's schema gives it
}

// places pairs the arguments of k with the parameters of the offered
// tool, in the order of its schema, which is the order a model writes
// them in. An argument the schema has no place for is left out; when the
// schema lists no parameters, the model writes all it has, sorted.
func (c conversation) places(k call) []place {
	t, _ := c.tool(k.name)
	if t.params == nil {
		var all []place
		for _, name := range slices.Sorted(maps.Keys(k.args)) {
			all = append(all, place{name, name})
		}
		return all
	}
	byPosition := t.byPosition()
	var ps []place
	for _, offered := range t.params {
		learnt, ok := byPosition[offered]
		if !ok {
			learnt = offered
		}
		if _, ok := k.args[learnt]; ok {
			ps = append(ps, place{learnt, offered})
		}
	}
	return ps
}

// written lists k's arguments as the model writes them for the offered
// tool (see places).
func (c conversation) written(k call) []argument {
	var args []argument
	for _, p := range c.places(k) {
		args = append(args, argument{p.offered, k.args[p.learnt]})
	}
	return args
}

// learnt renames the arguments of a call read from an earlier reply to
// the names the model learnt for them, undoing written.
func (c conversation) learnt(k call) call {
	t, _ := c.tool(k.name)
	// The schema names none of the learnt names, so no renaming collides.
	for offered, learnt := range t.byPosition() {
		if v, ok := k.args[offered]; ok {
			delete(k.args, offered)
			k.args[learnt] = v
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
	c.earlier = c.readEarlier(turns[:request])
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
	var offered []tool
	for _, line := range strings.Split(m[1], "\n") {
		var sig struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal([]byte(line), &sig) != nil || sig.Function.Name == "" {
			continue
		}
		offered = append(offered, tool{name: sig.Function.Name, params: tools.PropertyOrder(sig.Function.Parameters)})
	}
	return offered
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
