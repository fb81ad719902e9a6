package demo

import (
	"slices"
	"strings"
	"unicode"
)

// lang is what the demo model writes in the language of a request: the
// parts of an email and of a meeting's title that are not the person's
// own words. Its reasoning and answers stay in English, as a small
// model's mostly do.
type lang struct {
	code          string
	hi, regards   string // an email's greeting and sign-off
	meeting, with string // a meeting's title when it has no topic: "Meeting with Bob"
	note          string // a body for an email about a topic: "A quick note about the %s"
	// words are common words of the language, to recognise it by.
	words []string
}

var (
	english = lang{code: "en", hi: "Hi", regards: "Best regards", meeting: "Meeting", with: "with",
		words: []string{"the", "a", "to", "and", "with", "that", "is", "i", "an", "send", "email", "tomorrow", "meeting", "please", "about", "at", "on"}}
	langs = []lang{english,
		{code: "fr", hi: "Bonjour", regards: "Cordialement", meeting: "Réunion", with: "avec", note: "Un petit mot au sujet de : %s.",
			words: []string{"le", "la", "les", "un", "une", "à", "avec", "pour", "que", "dire", "demain", "réunion", "je", "est", "et", "du", "au", "envoie", "s'il", "vous", "plaît"}},
		{code: "de", hi: "Hallo", regards: "Viele Grüße", meeting: "Besprechung", with: "mit", note: "Eine kurze Nachricht zu: %s.",
			words: []string{"der", "die", "das", "ein", "eine", "einen", "und", "mit", "dass", "ist", "ich", "morgen", "um", "uhr", "bitte", "schick", "sag", "für", "zu"}},
		{code: "es", hi: "Hola", regards: "Saludos", meeting: "Reunión", with: "con", note: "Un mensaje rápido sobre: %s.",
			words: []string{"el", "los", "las", "una", "con", "para", "que", "mañana", "reunión", "y", "es", "correo", "envía", "dile", "por", "favor", "hoy", "llego", "del", "cancela", "programa", "diciendo"}},
	}
)

// languageOf tells the language of a request by its common words;
// English when it cannot tell.
func languageOf(request string) lang {
	counts := make([]int, len(langs))
	for _, w := range strings.FieldsFunc(strings.ToLower(request), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		for i, l := range langs {
			if slices.Contains(l.words, w) {
				counts[i]++
			}
		}
	}
	best := 0
	for i, n := range counts {
		if n > counts[best] {
			best = i
		}
	}
	return langs[best]
}

// inSentence writes a title as it reads inside a sentence: "the sync",
// but German keeps its nouns capitalised ("die Besprechung").
func (l lang) inSentence(title string) string {
	if l.code == "de" {
		return title
	}
	return lowerFirst(title)
}
