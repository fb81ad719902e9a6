package demo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// reply is what the demo model writes: its reasoning, then either plain
// text for the person or tool calls, as Qwen3 does after thinking.
type reply struct {
	thinking []string // sentences
	text     string   // empty when there are calls
	calls    []call
}

// write renders the reply to c as raw model output: the opening the
// prompt calls for, and calls in the dialect it teaches.
func (r reply) write(c conversation) string {
	var b strings.Builder
	switch c.start {
	case thinkFirst:
		b.WriteString("<think>\n" + strings.Join(r.thinking, " ") + "\n</think>\n\n")
	case thinkSkipped:
		b.WriteString("<think>\n\n</think>\n\n")
	}
	b.WriteString(r.text)
	writeCalls(&b, c.dialect, r.calls, c.written)
	return b.String()
}

// respond decides the whole reply to a conversation: answer with the
// tool results when the last turn holds them, else act on the request.
func respond(c conversation) reply {
	if n := len(c.rounds); n > 0 && len(c.rounds[n-1].responses) > 0 {
		return answer(c)
	}
	return act(c)
}

// act replies to a new request: tool calls, a question when a detail is
// missing, or plain text when no tool fits.
func act(c conversation) reply {
	needs, p := c.intent()
	if len(needs) == 0 {
		return chat(c)
	}
	wants := "Okay, " + paraphrase(c.request)
	var absent []string
	for _, t := range needs {
		if !c.offers(t) {
			absent = append(absent, t)
		}
	}
	if len(absent) > 0 {
		return unavailable(c, wants, absent)
	}
	if p.tooBig() {
		return tooMany(wants)
	}
	if len(p.gaps) > 0 {
		return reply{
			thinking: []string{strings.TrimSuffix(wants, ".") + ", but " + join(p.gaps, "and") + ".", "I shouldn't guess, so I'll ask."},
			text:     strings.Join(p.questions, " "),
		}
	}
	var plans []string
	for _, k := range p.calls {
		plans = append(plans, c.describe(k))
	}
	thinking := append([]string{wants}, p.notes...)
	thinking = append(thinking, "I'll call "+strings.Join(plans, ", then ")+".")
	return reply{thinking: thinking, calls: p.calls}
}

// tooMany asks the person to split a request that needs more than one
// reply should hold.
func tooMany(wants string) reply {
	return reply{
		thinking: []string{wants, "That needs more tool calls or invitations than I should make in one reply, so I'll ask the user to split it."},
		text: fmt.Sprintf("That would take more than %d tool calls, or a meeting with more than %d people, in one go. As the offline demo model I don't do that much at once. Could you split it into smaller requests?",
			maxCalls, maxAttendees),
	}
}

// unavailable says that tools the request needs, by the names the model
// learnt, are not offered. A sum it does not work out itself: a scripted
// model's arithmetic would be made up.
func unavailable(c conversation, wants string, absent []string) reply {
	var can, servers []string
	for _, t := range absent {
		s := skills[t]
		can = append(can, s.ability)
		if s.server != "" {
			servers = append(servers, fmt.Sprintf(`--mcp "toolscope mcp %s"`, s.server))
		}
	}
	can, servers = dedupe(can), dedupe(servers)
	have := "I have no tools at all here."
	if len(c.tools) > 0 {
		have = "The tools I have are: " + join(c.toolNames(), "and") + "."
	}
	verb := "isn't"
	if len(absent) > 1 {
		verb = "aren't"
	}
	thinking := fmt.Sprintf("But %s %s among my tools, so I can't do that. I'll tell the user.", join(absent, "and"), verb)
	text := fmt.Sprintf("I can't %s: %s %s among the tools I was given. %s", join(can, "or"), join(absent, "and"), verb, have)
	if len(servers) > 0 {
		thinking = fmt.Sprintf("But %s %s among my tools, and I must not make the result up. I'll tell the user.", join(absent, "and"), verb)
		text += " As the offline demo model I don't work numbers out myself, so I won't guess. Start toolscope with " +
			join(servers, "and") + " to give me the tool."
	}
	return reply{thinking: []string{wants, thinking}, text: text}
}

var (
	greetingRE = regexp.MustCompile(`(?i)^\W*(?:hi|hello|hey|howdy|good (?:morning|afternoon|evening))\b`)
	thanksRE   = regexp.MustCompile(`(?i)\b(?:thanks|thank you|thx|cheers)\b`)
	helpRE     = regexp.MustCompile(`(?i)\b(?:help|what can you do|who are you|what are you)\b`)
)

// chat answers a request that needs no tool. The demo model knows nothing
// beyond its script, and says so rather than make an answer up.
func chat(c conversation) reply {
	var can []string
	example := ""
	for _, t := range c.tools {
		if s, ok := skills[trainedName(t.name)]; ok {
			can = append(can, s.ability)
			if example == "" {
				example = s.example
			}
		}
	}
	can = dedupe(can)
	offer := "None of the tools offered here are ones I know how to use."
	if len(can) > 0 {
		offer = fmt.Sprintf("With the tools offered here I can %s. Try: %q.", join(can, "and"), example)
	}
	const me = "I'm toolscope's offline demo model, a scripted stand-in for a real LLM"
	switch {
	case greetingRE.MatchString(c.request):
		return reply{
			thinking: []string{"The user is saying hello. No tool is needed; I'll greet them and say what I can do."},
			text:     "Hello! " + me + ". " + offer,
		}
	case thanksRE.MatchString(c.request):
		return reply{
			thinking: []string{"The user is thanking me. Nothing to do; I'll reply briefly."},
			text:     "You're welcome!",
		}
	case helpRE.MatchString(c.request):
		return reply{
			thinking: []string{"The user asks what I can do. I'll explain what my tools let me do."},
			text:     me + ". " + offer,
		}
	}
	tools := "I have no tools"
	if len(c.tools) > 0 {
		tools = "none of my tools (" + join(c.toolNames(), "and") + ") helps with it"
	}
	return reply{
		thinking: []string{
			"The user asks: " + quote(c.request),
			fmt.Sprintf("That needs no tool call: %s. As the offline demo model I can't really answer general questions, so I'll say so honestly and explain what I can do.", tools),
		},
		text: me + ", so I can't really answer general questions. " + offer + " For real answers, connect toolscope to a model running in Ollama.",
	}
}

func (c conversation) toolNames() []string {
	var names []string
	for _, t := range c.tools {
		names = append(names, t.name)
	}
	return names
}

var (
	politeRE = regexp.MustCompile(`(?i)^(?:(?:hey|hi|ok|okay)[,!]?\s+)?(?:(?:can|could|would|will) you\s+|please\s+|i(?: want|'d like| would like| need) you to\s+)*`)
	myRE     = regexp.MustCompile(`(?i)\b(?:my|our)\b`)
	meRE     = regexp.MustCompile(`(?i)\b(?:me|us)\b`)
)

// paraphrase restates a request as the model's reasoning does: "Can you
// email my boss?" becomes "the user wants me to email their boss.".
func paraphrase(request string) string {
	task := politeRE.ReplaceAllString(strings.TrimSpace(request), "")
	task = strings.TrimSuffix(strings.TrimRight(task, "?.! "), ", please")
	if loc := verbRE.FindStringIndex(task); loc == nil || loc[0] != 0 {
		return "the user asks: " + quote(request)
	}
	if languageOf(request).code != english.code {
		return "the user asks: " + quote(request)
	}
	if strings.IndexFunc(task, unicode.IsLower) < 0 {
		task = strings.ToLower(task) // "SEND AN EMAIL …"
	}
	task = bounded(meRE.ReplaceAllString(myRE.ReplaceAllString(task, "their"), "them"))
	if !strings.HasSuffix(task, "…") {
		task += "."
	}
	return "the user wants me to " + lowerFirst(task)
}

// quote quotes a request as a sentence of its own, cut to one line.
func quote(request string) string {
	r := bounded(strings.TrimSpace(request))
	end := "."
	if r != "" && strings.ContainsRune(".?!", rune(r[len(r)-1])) {
		end = ""
	}
	return strconv.Quote(r) + end
}

// bounded cuts a request to a line, for the reasoning to restate.
func bounded(s string) string {
	cut := clipRunes(clipWords(s, maxQuoteWords), maxQuoteRunes)
	if len(cut) < len(strings.Join(strings.Fields(s), " ")) {
		return cut + "…"
	}
	return s
}

// join lists items as a person writes them: "a", "a and b", "a, b and c".
func join(items []string, conj string) string {
	switch n := len(items); n {
	case 0:
		return ""
	case 1:
		return items[0]
	default:
		return strings.Join(items[:n-1], ", ") + " " + conj + " " + items[n-1]
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}
