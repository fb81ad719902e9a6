package demo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// day is a date named in a request.
type day struct {
	date time.Time // midnight UTC; zero when the request names no date
	// said is how the request named it, e.g. "tomorrow", "next Monday",
	// "December 1" or "2026-12-01".
	said     string
	relative bool // said only makes sense next to today's date
}

func (d day) iso() string { return d.date.Format(time.DateOnly) }

// human is the date as a person writes it in a message: "Monday, November 30".
func (d day) human() string { return d.date.Format("Monday, January 2") }

// note is the sentence a model thinks to itself after resolving the date.
func (d day) note(today time.Time) string {
	switch {
	case d.said == d.iso():
		return fmt.Sprintf("%s is a %s.", d.said, d.date.Weekday())
	case d.relative && d.date.Equal(today):
		return fmt.Sprintf("Today is %s.", longDate(today))
	case strings.Contains(d.said, d.date.Weekday().String()):
		return fmt.Sprintf("Today is %s, so %s is %s.", longDate(today), d.said, d.iso())
	case d.relative:
		return fmt.Sprintf("Today is %s, so %s is %s.", longDate(today), d.said, longDate(d.date))
	default:
		return fmt.Sprintf("%s is %s.", d.said, longDate(d.date))
	}
}

// longDate writes t as "Monday, 2026-11-30", the form the system prompt uses.
func longDate(t time.Time) string { return t.Format("Monday, 2006-01-02") }

var (
	isoDateRE  = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	dayWordRE  = regexp.MustCompile(`(?i)` + letters(`day after tomorrow|tomorrow|today|tonight|après-demain|demain|aujourd'hui|ce soir|übermorgen|morgen|heute|pasado mañana|mañana|hoy|esta noche`))
	weekdayRE  = regexp.MustCompile(`(?i)` + letters(`(?:(next|this|on|nächsten|nächster|próximo|el próximo)\s+)?(`+weekdayPattern+`)(?:\s+(prochain))?`))
	monthDayRE = regexp.MustCompile(`(?i)\b(` + monthPattern + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	dayMonthRE = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthPattern + `)\b`)
)

// dayWords are the words for days near today in the languages the demo
// reads, by their English word.
var dayWords = map[string]string{
	"après-demain": "day after tomorrow", "demain": "tomorrow", "aujourd'hui": "today", "ce soir": "tonight",
	"übermorgen": "day after tomorrow", "morgen": "tomorrow", "heute": "today",
	"pasado mañana": "day after tomorrow", "mañana": "tomorrow", "hoy": "today", "esta noche": "tonight",
}

const monthPattern = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

// findDay reads the date that text names. Dates relative to today are
// only understood when today is known (not zero): a model that was not
// told the date cannot resolve "tomorrow" either.
func findDay(text string, today time.Time) day {
	if m := isoDateRE.FindString(text); m != "" {
		if t, err := time.Parse(time.DateOnly, m); err == nil {
			return day{date: t, said: m}
		}
	}
	if today.IsZero() {
		return day{}
	}
	if m := dayWordRE.FindStringSubmatch(text); m != nil {
		word := strings.ToLower(m[1])
		if english, ok := dayWords[word]; ok {
			word = english
		}
		ahead := map[string]int{"today": 0, "tonight": 0, "tomorrow": 1, "day after tomorrow": 2}[word]
		return day{date: today.AddDate(0, 0, ahead), said: word, relative: true}
	}
	if m := weekdayRE.FindStringSubmatch(text); m != nil {
		prefix := strings.ToLower(m[2])
		if prefix != "" && prefix != "this" && prefix != "on" || m[4] != "" {
			prefix = "next"
		}
		return weekday(today, prefix, m[3])
	}
	if m := monthDayRE.FindStringSubmatch(text); m != nil {
		return monthDay(today, m[1], m[2])
	}
	if m := dayMonthRE.FindStringSubmatch(text); m != nil {
		return monthDay(today, m[2], m[1])
	}
	return day{}
}

// weekday resolves "Friday", "on Friday" and "this Friday" to the next
// Friday after today, and "next Friday" to the Friday of next week (weeks
// start on Monday), the reading most people mean.
func weekday(today time.Time, prefix, name string) day {
	target := weekdays[strings.ToLower(name)]
	said := target.String()
	var date time.Time
	if prefix == "next" {
		said = "next " + said
		nextMonday := today.AddDate(0, 0, 7-mondayIndex(today.Weekday()))
		date = nextMonday.AddDate(0, 0, mondayIndex(target))
	} else {
		ahead := (int(target) - int(today.Weekday()) + 7) % 7
		if ahead == 0 {
			ahead = 7
		}
		date = today.AddDate(0, 0, ahead)
	}
	return day{date: date, said: said, relative: true}
}

// monthDay resolves "December 1" to its next occurrence, today included.
func monthDay(today time.Time, month, dayOfMonth string) day {
	m := months[strings.ToLower(month)[:3]]
	d, _ := strconv.Atoi(dayOfMonth)
	date := time.Date(today.Year(), m, d, 0, 0, 0, 0, time.UTC)
	if date.Month() != m {
		return day{} // "February 31" names no day
	}
	if date.Before(today) {
		date = date.AddDate(1, 0, 0)
	}
	return day{date: date, said: fmt.Sprintf("%s %d", m, d)}
}

func mondayIndex(d time.Weekday) int { return (int(d) + 6) % 7 }

// weekdays are the days' names in English, French, German and Spanish.
var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"dimanche": time.Sunday, "lundi": time.Monday, "mardi": time.Tuesday, "mercredi": time.Wednesday,
	"jeudi": time.Thursday, "vendredi": time.Friday, "samedi": time.Saturday,
	"sonntag": time.Sunday, "montag": time.Monday, "dienstag": time.Tuesday, "mittwoch": time.Wednesday,
	"donnerstag": time.Thursday, "freitag": time.Friday, "samstag": time.Saturday,
	"domingo": time.Sunday, "lunes": time.Monday, "martes": time.Tuesday, "miércoles": time.Wednesday,
	"jueves": time.Thursday, "viernes": time.Friday, "sábado": time.Saturday,
}

const weekdayPattern = `sunday|monday|tuesday|wednesday|thursday|friday|saturday|` +
	`dimanche|lundi|mardi|mercredi|jeudi|vendredi|samedi|` +
	`sonntag|montag|dienstag|mittwoch|donnerstag|freitag|samstag|` +
	`domingo|lunes|martes|miércoles|jueves|viernes|sábado`

var months = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"may": time.May, "jun": time.June, "jul": time.July, "aug": time.August,
	"sep": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

// clock is a time of day named in a request.
type clock struct {
	hour, minute int
	said         string // as written, e.g. "3pm" or "at 9"; "" when none
}

func (c clock) known() bool { return c.said != "" }

func (c clock) String() string { return fmt.Sprintf("%02d:%02d", c.hour, c.minute) }

var (
	hhmmRE = regexp.MustCompile(`(?i)\b([01]?\d|2[0-3]):([0-5]\d)(?:\s*([ap])\.?m\b\.?)?`)
	ampmRE = regexp.MustCompile(`(?i)\b(1[0-2]|0?[1-9])\s*([ap])\.?m\b\.?`)
	// hourRE reads French "10h30" and German "10 Uhr".
	hourRE   = regexp.MustCompile(`(?i)\b([01]?\d|2[0-3])\s?(?:h|heures?|uhr)(?:\s?([0-5]\d))?\b`)
	noonRE   = regexp.MustCompile(`(?i)` + letters(`noon|midday|midi|mittag|mediodía`))
	atHourRE = regexp.MustCompile(`(?i)` + letters(`(?:at|à|um|a las|a la)\s+([01]?\d|2[0-3])`))
)

// findClock reads the time of day that text names; the zero clock means
// none.
func findClock(text string) clock {
	if m := hhmmRE.FindStringSubmatch(text); m != nil {
		h, _ := strconv.Atoi(m[1])
		mins, _ := strconv.Atoi(m[2])
		return clock{hour: halfDay(h, m[3]), minute: mins, said: m[0]}
	}
	if m := ampmRE.FindStringSubmatch(text); m != nil {
		h, _ := strconv.Atoi(m[1])
		return clock{hour: halfDay(h, m[2]), said: m[0]}
	}
	if m := hourRE.FindStringSubmatch(text); m != nil {
		h, _ := strconv.Atoi(m[1])
		mins, _ := strconv.Atoi(m[2])
		return clock{hour: afternoon(h), minute: mins, said: m[0]}
	}
	if m := noonRE.FindStringSubmatch(text); m != nil {
		return clock{hour: 12, said: m[1]}
	}
	if m := atHourRE.FindStringSubmatch(text); m != nil {
		h, _ := strconv.Atoi(m[2])
		return clock{hour: afternoon(h), said: m[1]}
	}
	return clock{}
}

// afternoon reads a bare hour from 1 to 7 as afternoon, since few
// meetings start at 3 a.m.
func afternoon(h int) int {
	if h >= 1 && h <= 7 {
		return h + 12
	}
	return h
}

// halfDay turns a 12-hour clock hour into 24-hour time; ap is "a", "p"
// or "" for a time written in 24-hour form.
func halfDay(h int, ap string) int {
	switch strings.ToLower(ap) {
	case "a":
		return h % 12
	case "p":
		return h%12 + 12
	}
	return h
}
