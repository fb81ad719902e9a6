package demo

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the demo model writes is bounded whatever the request's length:
// it summarises, as a model should, rather than copy the request out at
// one token a word. Subjects and titles are a few words, a body a couple
// of sentences, and a request quoted in the reasoning one line.
const (
	maxTopicWords    = 6
	maxSubjectWords  = 6
	maxSubjectRunes  = 60
	maxBodySentences = 2
	maxBodyWords     = 40
	maxBodyRunes     = 300
	maxQuoteWords    = 14
	maxQuoteRunes    = 100
)

var (
	// saidRE finds the words that introduce what an email must say:
	// "saying hi", "that I'll be late", "pour lui dire que …", "dass …".
	saidRE = regexp.MustCompile(`(?i)^(?:(?:saying|to say|that says|telling (?:him|her|them)|to (?:let|tell) (?:him|her|them)(?: know)?|with the message|that|pour (?:lui |leur )?dire|disant|que|dass|mit der nachricht|diciendo|para decir(?:le|les)?)(?:\s+(?:that|que|dass))?[\s,:]+|qu['’])`)
	// sentenceEndRE ends the first clause of a message, for a subject.
	sentenceEndRE  = regexp.MustCompile(`[.!?;](?:\s|$)|,\s|\s[-–—]\s`)
	sentenceRE     = regexp.MustCompile(`[^.!?]*(?:[.!?]+(?:\s+|$)|$)`)
	greetingOnlyRE = regexp.MustCompile(`(?i)^(?:hi|hello|hey|bonjour|salut|hallo|hola)(?: there)?[!.]*$`)
)

// Words that may stand between an email verb and its message: "send
// [an email to] bob@co.com saying …".
var (
	mailNouns = []string{"email", "e-mail", "mail", "message", "note", "line", "courriel", "mot", "nachricht", "correo", "mensaje"}
	articles  = []string{"a", "an", "the", "quick", "short", "un", "une", "petit", "eine", "kurze", "una"}
	toWords   = []string{"to", "à", "au", "an", "a", "al", "and", "et", "und", "y"}
	// weakWords are where a subject line may stop: before "for Friday".
	weakWords = []string{"for", "to", "by", "and", "with", "on", "at", "in", "because", "but", "so",
		"pour", "avec", "et", "à", "de", "dans", "für", "mit", "und", "um", "am", "zu", "para", "con", "y", "en", "porque"}
)

// readMessage reads what an email must say, or failing that a topic of
// its own ("a reminder to …"), from the text after the verb. Both are ""
// when the clause names its topic the usual way ("about the launch",
// "him the agenda").
func (cl clause) readMessage(v verb, rest string) (message, topic string) {
	if _, said, ok := strings.Cut(rest, ": "); ok {
		return cleanMessage(said), ""
	}
	words := strings.Fields(rest)
	tail := strings.TrimLeft(strings.Join(words[cl.skipHead(words):], " "), ",;: ")
	switch {
	case tail == "" || startsWith(aboutRE, tail):
		return "", ""
	case saidRE.MatchString(tail):
		return cleanMessage(tail[saidRE.FindStringIndex(tail)[1]:]), ""
	case strings.ContainsRune(`"“«`, firstRune(tail)):
		return cleanMessage(tail), ""
	case strings.EqualFold(v.text, "remind") && strings.HasPrefix(strings.ToLower(tail), "to "):
		task := cleanMessage(tail[3:])
		return "Just a reminder to " + lowerFirst(task), "Reminder: " + clipWords(task, maxTopicWords-1)
	case v.tells && strings.HasPrefix(strings.ToLower(tail), "to "):
		return "Please " + lowerFirst(cleanMessage(tail[3:])), ""
	case v.tells:
		return cleanMessage(tail), ""
	}
	return "", ""
}

// skipHead returns how many words at the start of words only say who the
// email goes to and that it is an email.
func (cl clause) skipHead(words []string) int {
	isRecipient := func(w string) bool {
		w = strings.Trim(w, ",;")
		// A pronoun next to an address is the message's: "tell bob@co.com
		// her flight is late".
		alone := len(cl.emails) == 0 && len(cl.names) == 0
		return emailRE.MatchString(w) || slices.Contains(cl.names, w) || alone && pronounRE.MatchString(w)
	}
	for i, w := range words {
		lw := strings.ToLower(strings.Trim(w, ",;"))
		next := func(k int) string {
			if i+k < len(words) {
				return strings.ToLower(strings.Trim(words[i+k], ",;"))
			}
			return ""
		}
		switch {
		case lw == "", isRecipient(w), slices.Contains(mailNouns, lw):
		case slices.Contains(toWords, lw) && i+1 < len(words) && isRecipient(words[i+1]):
		case slices.Contains(articles, lw) && (slices.Contains(mailNouns, next(1)) || slices.Contains(mailNouns, next(2))):
		default:
			return i
		}
	}
	return len(words)
}

// cleanMessage trims quotes and shouting from a message.
func cleanMessage(s string) string {
	s = strings.Trim(strings.TrimSpace(s), `"“”«»' `)
	if strings.IndexFunc(s, unicode.IsLower) < 0 {
		s = strings.ToLower(s)
	}
	return s
}

func startsWith(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// summary is a subject line for a message: its first clause, cut to a
// few words, before a word such as "for" where it can.
func summary(message string) string {
	first := message
	if loc := sentenceEndRE.FindStringIndex(message); loc != nil {
		first = message[:loc[0]]
	}
	words := strings.Fields(first)
	if len(words) > maxSubjectWords {
		cut := maxSubjectWords
		for i := maxSubjectWords - 1; i >= 3; i-- {
			if slices.Contains(weakWords, strings.ToLower(words[i])) {
				cut = i
				break
			}
		}
		words = words[:cut]
	}
	return capitalize(clipRunes(strings.TrimRight(strings.Join(words, " "), ",;:.!?"), maxSubjectRunes))
}

// excerpt is the part of a message that goes in a body: its first
// sentences, bounded, ending as a sentence does.
func excerpt(message string) string {
	var kept []string
	for _, s := range sentenceRE.FindAllString(message, maxBodySentences) {
		if s = strings.TrimSpace(s); s != "" {
			kept = append(kept, s)
		}
	}
	text := strings.Join(kept, " ")
	cut := clipRunes(clipWords(text, maxBodyWords), maxBodyRunes)
	switch {
	case len(cut) < len(text):
		cut = strings.TrimRight(cut, ",;: ") + "…"
	case !strings.ContainsRune(".!?…", lastRune(cut)):
		cut += "."
	}
	return capitalize(cut)
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// clipWords keeps the first n words of s.
func clipWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ")
}

// clipRunes keeps the first n characters of s: a "word" may be a long
// run of letters with no space, which is still many tokens.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
