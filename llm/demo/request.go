package demo

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// clause is one thing a request asks for: "Schedule a sync with
// bob@co.com tomorrow at 9 and email him the agenda" holds two.
type clause struct {
	tool   string // the built-in tool that does it; "" when none does
	emails []string
	// names are people named without an address ("email John …").
	names []string
	// pronoun stands for people named in an earlier clause ("email him").
	pronoun string
	day     day
	clock   clock
	// topic is what it is about: "standup" in "about tomorrow's standup",
	// "agenda" in "email him the agenda".
	topic string
}

const verbPattern = `e-?mail|mail|send|message|remind|notify|schedule|book|arrange|organi[sz]e|set up|invite|cancel|call off|delete`

var (
	verbRE = regexp.MustCompile(`(?i)\b(?:` + verbPattern + `)\b`)
	// clauseBreakRE finds where a new clause starts: a verb after "and",
	// "then" or punctuation. "alice@co.com and bob@co.com" is no break.
	clauseBreakRE = regexp.MustCompile(`(?i)(?:[,;.]?\s+(?:and|then|and then)|[,;.])\s+(` + verbPattern + `)\b`)
	emailRE       = regexp.MustCompile(`[\pL\pN._%+-]+@[\pL\pN.-]+\.\pL{2,}`)
	nameRE        = regexp.MustCompile(`(?i:\b(?:to|with|and|e-?mail|mail|invite|remind|message|notify))\s+(\p{Lu}\p{Ll}+)\b`)
	pronounRE     = regexp.MustCompile(`(?i)\b(?:him|her|them|everyone|everybody|the attendees)\b`)
	aboutRE       = regexp.MustCompile(`(?i)\b(?:about|regarding|concerning|re:)\s+(.*)`)
	// phraseEndRE ends a topic phrase where the date, time or people start.
	phraseEndRE = regexp.MustCompile(`(?i)\s(?:with|on|at|for|to|about|regarding|by|from|and|in|via|tomorrow|today|tonight|next|this)\b|[,;!?]|\.(?:\s|$)`)
)

// toolFor names the built-in tool that carries out a verb.
func toolFor(verb string) string {
	switch strings.ToLower(verb) {
	case "schedule", "book", "arrange", "organise", "organize", "set up", "invite":
		return scheduleMeeting
	case "cancel", "call off", "delete":
		return cancelMeeting
	}
	return sendMail
}

// readRequest splits a request into clauses and reads each one.
func readRequest(request string, today time.Time) []clause {
	var clauses []clause
	start := 0
	for _, m := range clauseBreakRE.FindAllStringSubmatchIndex(request, -1) {
		clauses = append(clauses, readClause(request[start:m[0]], today))
		start = m[2]
	}
	return append(clauses, readClause(request[start:], today))
}

func readClause(text string, today time.Time) clause {
	var cl clause
	verb := verbRE.FindStringIndex(text)
	if verb == nil {
		return cl
	}
	rest := text[verb[1]:]
	cl.tool = toolFor(text[verb[0]:verb[1]])
	cl.emails = dedupe(emailRE.FindAllString(text, -1))
	for _, m := range nameRE.FindAllStringSubmatch(text, -1) {
		if !isDateWord(m[1]) {
			cl.names = append(cl.names, m[1])
		}
	}
	cl.names = dedupe(cl.names)
	cl.pronoun = strings.ToLower(pronounRE.FindString(rest))
	cl.day = findDay(text, today)
	cl.clock = findClock(text)
	if m := aboutRE.FindStringSubmatch(rest); m != nil {
		rest = m[1]
	}
	cl.topic = cl.phrase(rest)
	return cl
}

// leadingFiller are words that come before a topic but are not part of it.
var leadingFiller = []string{
	"a", "an", "the", "my", "our", "your", "his", "her", "their", "this", "that",
	"him", "them", "me", "us", "it", "everyone", "everybody", "both", "all",
	"email", "e-mail", "mail", "message", "note", "quick", "short", "new",
	"today", "tomorrow", "tonight", "next",
}

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
	return s
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
