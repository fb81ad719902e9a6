package demo

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/toolscope/toolscope/tools"
)

// clause is one thing a request asks for: "Schedule a sync with
// bob@co.com tomorrow at 9 and email him the agenda" holds two.
type clause struct {
	tool   string // the built-in tool that does it; "" when none does
	emails []string
	// names are people named without an address ("email John …").
	names []string
	// pronoun stands for people named in an earlier clause or turn
	// ("email him").
	pronoun string
	// refersToIt is set when the clause is about something said before
	// ("email him about it", "cancel it").
	refersToIt bool
	day        day
	clock      clock
	// topic is what it is about: "standup" in "about tomorrow's standup",
	// "agenda" in "email him the agenda".
	topic string
	// message is what an email must say, as the request words it: "I'll
	// be late" in "tell bob@co.com I'll be late".
	message string
}

// verbs are the words that ask for a built-in tool, in the languages
// the demo model reads: English, French, German and Spanish. Where two
// match at the same place, the one listed first wins.
var verbs = []struct {
	tool    string
	pattern string
	// tells: what follows the person is the message ("tell bob@co.com
	// I'm late").
	tells bool
	// weak verbs ask for the tool only in a clause that names someone or
	// what the tool makes: "tell bob@co.com …" and "plan a meeting" do,
	// "tell me a joke" and "what's the plan?" do not.
	weak bool
}{
	{tool: tools.CancelMeeting, pattern: `cancel|call off|delete|annul(?:e|er|ez)|storniere?n?|absagen|cancela(?:r)?|anula(?:r)?`},
	{tool: tools.ScheduleMeeting, pattern: `schedule|organi[sz](?:e|er|ez)|invite|planifi(?:e|er|ez)|programm(?:e|er|ez)|vereinbare?n?|organisiere?n?|(?:programa|agenda|organiza)r?\s+(?:una?|el|la)`},
	{tool: tools.ScheduleMeeting, pattern: `book|arrange|set up|plan|plane|planen`, weak: true},
	{tool: tools.SendMail, pattern: `tell|let\s+\S+(?:\s+and\s+\S+)?\s+know|inform|notify|dis|dites|préviens|prévenez|sag(?:e|en)?|dile|diles`, tells: true, weak: true},
	{tool: tools.SendMail, pattern: `write|ping|message|écri(?:s|re|vez)|schreib(?:e|en)?|escr[ií]b(?:e|ele|eles|ir)`, weak: true},
	{tool: tools.SendMail, pattern: `e-?mail|mail|send|remind|envoie|envoyer|envoyez|rappelle|schick(?:e|en)?|sende|erinnere|env[ií]a(?:le|les|r)?|m[aá]nda(?:le|les|r)?|recu[eé]rda(?:le|les)?`},
}

// madeBy are words for what each tool makes, which a weak verb needs.
var madeBy = map[string][]string{
	tools.SendMail:        mailNouns,
	tools.ScheduleMeeting: append([]string{"sync", "review", "standup", "stand-up", "1:1", "catch-up"}, genericMeetings...),
}

// letters wraps a pattern so that it matches whole words only, accented
// ones included, which \b does not understand. Group 1 is the word.
func letters(pattern string) string {
	return `(?:^|[^\pL\pN@._%+])(` + pattern + `)(?:[^\pL\pN@_%+]|$)`
}

func verbPattern() string {
	var alts []string
	for _, v := range verbs {
		alts = append(alts, "("+v.pattern+")")
	}
	return strings.Join(alts, "|")
}

var (
	verbRE = regexp.MustCompile(`(?i)` + letters(verbPattern()))
	// clauseBreakRE finds where a new clause starts: a verb after "and",
	// "then" or punctuation. "alice@co.com and bob@co.com" is no break.
	clauseBreakRE = regexp.MustCompile(`(?i)(?:[,;.]?\s+(?:and|then|and then|et|puis|und|dann|y|luego)|[,;.])\s+(` + verbPattern() + `)(?:[^\pL\pN]|$)`)
	emailRE       = regexp.MustCompile(`[\pL\pN._%+-]+@[\pL\pN.-]+\.\pL{2,}`)
	nameRE        = regexp.MustCompile(`(?i:` + letters(`to|with|and|e-?mail|mail|invite|remind|message|notify|tell|à|avec|an|mit|a|con`) + `)\s*(\p{Lu}\p{Ll}+)(?:[^\pL]|$)`)
	pronounRE     = regexp.MustCompile(`(?i)` + letters(`him|her|them|everyone|everybody|the attendees|lui|leur|ihm|ihr|ihnen`))
	// encliticRE finds the pronoun Spanish joins to a verb: "dile", "envíale".
	encliticRE = regexp.MustCompile(`(?i)^(?:env[ií]a|m[aá]nda|escr[ií]be|di|recu[eé]rda)(les?)$`)
	aboutRE    = regexp.MustCompile(`(?i)` + letters(`about|regarding|concerning|re:|au sujet d[eu]|à propos d[eu]|concernant|über|wegen|bezüglich|zum thema|sobre|acerca de|respecto a`) + `\s*(.*)`)
	itRE       = regexp.MustCompile(`(?i)` + letters(`it|that|this|ça|cela|la|le|es|eso|esto|sie|darüber|à ce sujet`))
	// germanCancelRE is German's split verb "sag … ab", which cancels.
	germanCancelRE = regexp.MustCompile(`(?i)^sag\w*\s.*\sab[\s.!?]*$`)
	abRE           = regexp.MustCompile(`(?i)\s+ab[\s.!?]*$`)
	// phraseEndRE ends a topic phrase where the date, time or people start.
	phraseEndRE = regexp.MustCompile(`(?i)\s(?:with|on|at|for|to|about|regarding|by|from|and|in|via|tomorrow|today|tonight|next|this|avec|pour|à|le|demain|mit|für|am|um|morgen|heute|con|para|a las|el|mañana|hoy|` + weekdayPattern + `)(?:[\s,.;:!?]|$)|[,;!?]|\.(?:\s|$)`)
	// questionRE finds a request worded as a question: "Could you …?".
	questionRE = regexp.MustCompile(`(?i)^\W*(?:could|can|would|will|pourriez|pourrais|peux|könnten|könntest|kannst|puedes|podrías|podria)\b`)
)

// verb is a verb found in a clause.
type verb struct {
	tool       string
	tells      bool
	weak       bool
	start, end int
	text       string
}

// findVerb finds the first verb in text that is not part of an address
// (see letters).
func findVerb(text string) (verb, bool) {
	m := verbRE.FindStringSubmatchIndex(text)
	if m == nil {
		return verb{}, false
	}
	// Group 1 is the verb; group i+2 matched when verbs[i] did.
	i := 0
	for m[2*(i+2)] < 0 {
		i++
	}
	v := verb{tool: verbs[i].tool, tells: verbs[i].tells, weak: verbs[i].weak, start: m[2], end: m[3], text: text[m[2]:m[3]]}
	if germanCancelRE.MatchString(text[v.start:]) {
		v.tool, v.tells, v.weak = tools.CancelMeeting, false, false
	}
	return v, true
}

// maxClauses bounds the clauses read from one request, whatever its
// length: one more than a reply may act on, so that a request asking
// for more gets a question back (see plan.tooBig and tooMany).
const maxClauses = maxCalls + 1

// readRequest splits a request into clauses and reads each one.
func readRequest(request string, today time.Time) []clause {
	if questionRE.MatchString(request) {
		// "Could you tell bob@co.com the room changed?" asks nothing of Bob.
		request = strings.TrimRight(request, "? ")
	}
	var clauses []clause
	start := 0
	for _, m := range clauseBreakRE.FindAllStringSubmatchIndex(request, -1) {
		if len(clauses) == maxClauses-1 {
			break
		}
		clauses = append(clauses, readClause(request[start:m[0]], today))
		start = m[2]
	}
	return mergeTells(append(clauses, readClause(request[start:], today)))
}

// mergeTells joins "email bob@co.com and tell him the room changed"
// into one email: the second clause only says what the first sends.
func mergeTells(clauses []clause) []clause {
	for i := len(clauses) - 1; i > 0; i-- {
		a, b := clauses[i-1], clauses[i]
		if a.tool == tools.SendMail && b.tool == tools.SendMail && a.message == "" && a.topic == "" &&
			len(b.emails) == 0 && b.pronoun != "" && b.message != "" {
			a.message = b.message
			clauses[i-1] = a
			clauses = slices.Delete(clauses, i, i+1)
		}
	}
	return clauses
}

func readClause(text string, today time.Time) clause {
	var cl clause
	v, ok := findVerb(text)
	if !ok {
		return cl
	}
	cl.tool = v.tool
	cl.emails = addresses(text)
	for _, m := range nameRE.FindAllStringSubmatch(text, -1) {
		if !isDateWord(m[2]) && !verbRE.MatchString(m[2]) && len(cl.names) < maxNames {
			cl.names = append(cl.names, m[2])
		}
	}
	cl.names = dedupe(cl.names)
	rest := strings.TrimLeft(text[v.end:], "-") // "dis-lui", "envoie-lui"
	if v.tool == tools.CancelMeeting {
		rest = abRE.ReplaceAllString(rest, "") // "sag … ab"
	}
	cl.pronoun = strings.ToLower(firstWord(pronounRE, rest))
	if m := encliticRE.FindStringSubmatch(v.text); m != nil && cl.pronoun == "" {
		cl.pronoun = strings.ToLower(m[1])
	}
	if v.weak && len(cl.emails) == 0 && len(cl.names) == 0 && cl.pronoun == "" && !hasWord(text, madeBy[v.tool]) {
		return clause{}
	}
	cl.day = findDay(text, today)
	cl.clock = findClock(text)
	cl.readContent(v, rest)
	cl.refersToIt = cl.topic == "" && cl.message == "" && itRE.MatchString(rest)
	return cl
}

// readContent reads what the clause is about (topic) or, for an email,
// what it must say (message), from the text after the verb.
func (cl *clause) readContent(v verb, rest string) {
	if cl.tool == tools.SendMail {
		cl.message, cl.topic = cl.readMessage(v, rest)
		if cl.message != "" || cl.topic != "" {
			return
		}
	}
	if m := aboutRE.FindStringSubmatch(rest); m != nil {
		rest = m[2]
	}
	cl.topic = cl.phrase(rest)
}

// maxAddress is the longest address there can be (RFC 5321); maxNames
// bounds the people a question asks about.
const (
	maxAddress = 254
	maxNames   = 4
)

// addresses finds the email addresses in text, in lower case, once each.
func addresses(text string) []string {
	var emails []string
	for _, e := range emailRE.FindAllString(text, -1) {
		if len(e) <= maxAddress {
			emails = append(emails, strings.ToLower(e))
		}
	}
	return dedupe(emails)
}

// hasWord reports whether text holds one of words.
func hasWord(text string, words []string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",;.!?()\"", r) }) {
		if slices.Contains(words, w) {
			return true
		}
	}
	return false
}

func firstWord(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// leadingFiller are words that come before a topic but are not part of it.
var leadingFiller = []string{
	"a", "an", "the", "my", "our", "your", "his", "her", "their", "this", "that",
	"him", "them", "me", "us", "it", "everyone", "everybody", "both", "all",
	"email", "e-mail", "mail", "message", "note", "quick", "short", "new",
	"today", "tomorrow", "tonight", "next", "please", "kindly", "bitte", "sie",
	"un", "une", "le", "la", "les", "l'", "mon", "ma", "notre", "lui", "demain",
	"ein", "eine", "einen", "einem", "das", "die", "der", "den", "mein", "meine", "unser", "unsere", "morgen", "heute",
	"el", "una", "los", "las", "mi", "nuestra", "nuestro", "mañana", "hoy",
}

// trailingFiller are words that may end a topic phrase cut before a date.
var trailingFiller = []string{"of", "the", "de", "du", "des", "del", "von", "vom", "am", "el", "la", "le"}

// phrase reads the topic at the start of s: "the standup meeting on
// Friday" gives "standup meeting", "him the agenda" gives "agenda".
func (cl clause) phrase(s string) string {
	words := strings.Fields(s)
	for len(words) > 0 && cl.isFiller(words[0]) {
		words = words[1:]
	}
	s = strings.Join(words, " ")
	if loc := phraseEndRE.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	words = strings.Fields(clipWords(s, maxTopicWords))
	// "la réunion de lundi" ends at "lundi", leaving "de" behind.
	for len(words) > 0 && slices.Contains(trailingFiller, strings.ToLower(words[len(words)-1])) {
		words = words[:len(words)-1]
	}
	return strings.Join(words, " ")
}

func (cl clause) isFiller(word string) bool {
	w := strings.ToLower(word)
	for _, possessive := range []string{"'s", "’s"} {
		w = strings.TrimSuffix(w, possessive)
	}
	return slices.Contains(leadingFiller, w) || isDateWord(w) ||
		emailRE.MatchString(word) || slices.Contains(cl.names, word)
}

// isDateWord tells weekday and month names, which look like names, from names.
func isDateWord(word string) bool {
	w := strings.ToLower(word)
	if _, ok := weekdays[w]; ok {
		return true
	}
	for m := time.January; m <= time.December; m++ {
		if name := strings.ToLower(m.String()); w == name || w == name[:3] {
			return true
		}
	}
	return false
}

func dedupe(items []string) []string {
	var out []string
	for _, it := range items {
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}
