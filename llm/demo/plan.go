package demo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/tools"
)

// plan is what the demo model decides to do for a request: the calls to
// make, the reasoning behind them, or the questions to ask first.
type plan struct {
	lang  lang // the language of the request, for the emails' own words
	calls []call
	notes []string // reasoning: resolved dates, times, people
	// gaps say what stops the calls ("there is no date for the sync") and
	// questions ask the person for it. No call is made while there are gaps.
	gaps      []string
	questions []string
}

// meeting is what a schedule_meeting call in the same request set up, so
// that a following email can refer to it.
type meeting struct {
	title string
	day   day
	clock clock
}

func (m meeting) when() string { return m.day.human() + " at " + m.clock.String() }

// maxCalls bounds the calls made for one request, and maxAttendees the
// people invited in one call, so that a reply's length is bounded: a
// request that asks for more gets a question instead (see tooMany).
const (
	maxCalls     = 4
	maxAttendees = 8
)

// intent reads what the request asks the tools to do: the tools it needs,
// by the names the model learnt, and the plan for calling them. It needs
// none when no tool fits.
func (c conversation) intent() (needs []string, p plan) {
	clauses := readRequest(c.request, c.today)
	for _, cl := range clauses {
		if cl.tool != "" && !slices.Contains(needs, cl.tool) {
			needs = append(needs, cl.tool)
		}
	}
	if len(needs) > 0 {
		return needs, planCalls(c, clauses)
	}
	var sums, tools []string
	for _, k := range readSums(c.request) {
		k = c.fit(k)
		p.calls = append(p.calls, k)
		needs = append(needs, trainedName(k.name))
		sums = append(sums, sumText(k))
		tools = append(tools, k.name)
	}
	if len(sums) == 0 {
		return nil, plan{}
	}
	needs, tools = dedupe(needs), dedupe(tools)
	works := "tool works"
	if len(tools) > 1 {
		works = "tools work"
	}
	p.notes = []string{fmt.Sprintf("That is %s. The %s %s that out, so I won't do it in my head.", join(sums, "and"), join(tools, "and"), works)}
	return needs, p
}

// planCalls turns the clauses of a request into calls of the built-in
// tools. A clause that leaves something out takes it from the clause
// before: "schedule a sync with bob@co.com tomorrow at 9 and email him"
// emails bob@co.com about tomorrow's sync. A clause that refers back
// with no clause before ("email him about it") takes it from the
// earlier turns of the conversation.
func planCalls(c conversation, clauses []clause) plan {
	p := plan{lang: languageOf(c.request)}
	var prev clause
	var last *meeting
	for _, cl := range clauses {
		if cl.tool == "" {
			continue
		}
		p.noteWhen(c, cl)
		about := last
		if prev.tool != "" {
			cl = p.inherit(cl, prev)
		} else if cl.pronoun != "" || cl.refersToIt {
			cl, about = p.recall(c.earlier, cl)
		}
		if !p.known(cl) {
			continue
		}
		switch cl.tool {
		case tools.SendMail:
			p.mail(cl, about)
		case tools.ScheduleMeeting:
			last = p.schedule(c, cl)
		case tools.CancelMeeting:
			p.cancel(cl, about)
		}
		prev = cl
	}
	for i, k := range p.calls {
		p.calls[i] = c.fit(k)
	}
	return p
}

// recall fills in what cl refers back to from the earlier turns: the
// people "him" or "them" stands for, what "it" is, and the meeting
// they last set up.
func (p *plan) recall(e earlier, cl clause) (clause, *meeting) {
	if len(cl.emails) == 0 && len(cl.names) == 0 && cl.pronoun != "" && len(e.people) > 0 {
		cl.emails = e.people
		p.notes = append(p.notes, fmt.Sprintf("%q means %s, from earlier in the conversation.", cl.pronoun, join(e.people, "and")))
	}
	it := e.topic
	if cl.tool == tools.CancelMeeting && e.meeting != nil {
		it = e.meeting.title // only a meeting can be cancelled
	}
	if cl.refersToIt && cl.topic == "" && it != "" {
		cl.topic = it
		p.notes = append(p.notes, fmt.Sprintf("\"It\" is the %s from earlier.", p.lang.inSentence(it)))
	}
	if cl.message != "" {
		return cl, nil
	}
	return cl, e.meeting
}

// known reports whether the people cl refers to are known, asking who
// they are when not.
func (p *plan) known(cl clause) bool {
	if cl.pronoun == "" || len(cl.emails) > 0 || len(cl.names) > 0 {
		return true
	}
	p.gaps = append(p.gaps, fmt.Sprintf("I don't know who %q is", cl.pronoun))
	p.questions = append(p.questions, fmt.Sprintf("Who do you mean by %q? Please give me their email address.", cl.pronoun))
	return false
}

// tooBig reports whether the plan needs more calls or invitations than
// one reply should hold.
func (p plan) tooBig() bool {
	for _, k := range p.calls {
		if len(textList(k.args[tools.ArgAttendees])) > maxAttendees {
			return true
		}
	}
	return len(p.calls) > maxCalls
}

// inherit fills in what cl leaves out from the clause before it.
func (p *plan) inherit(cl, prev clause) clause {
	if cl.day.date.IsZero() {
		cl.day = prev.day
	}
	if !cl.clock.known() {
		cl.clock = prev.clock
	}
	refersBack := cl.pronoun != "" || (cl.tool == tools.SendMail && prev.tool == tools.ScheduleMeeting)
	if len(cl.emails) == 0 && len(cl.names) == 0 && refersBack && len(prev.emails) > 0 {
		cl.emails = prev.emails
		if cl.pronoun != "" {
			p.notes = append(p.notes, fmt.Sprintf("%q means %s.", cl.pronoun, join(prev.emails, "and")))
		}
	}
	return cl
}

// noteWhen writes down how the clause's own date and time were read.
func (p *plan) noteWhen(c conversation, cl clause) {
	if d := cl.day; !d.date.IsZero() {
		p.notes = append(p.notes, d.note(c.today))
		if !d.relative && d.date.Before(c.today) {
			p.notes = append(p.notes, fmt.Sprintf("That is already in the past, but %s is the date the user gave, so I'll use it.", d.iso()))
		}
	}
	if k := cl.clock; k.known() && k.said != k.String() {
		p.notes = append(p.notes, fmt.Sprintf("I'll read %q as %s.", k.said, k))
	}
}

func (p *plan) mail(cl clause, about *meeting) {
	if len(cl.emails) == 0 {
		if !p.askAddresses(cl) {
			p.gaps = append(p.gaps, "no recipient address was given")
			p.questions = append(p.questions, "Who should I send the email to? Please give me their email address.")
		}
		return
	}
	if cl.topic == "" && cl.message == "" && about == nil {
		p.gaps = append(p.gaps, "it doesn't say what the email is about")
		p.questions = append(p.questions, "What should the email be about?")
		return
	}
	subject := capitalize(cl.topic)
	switch {
	case cl.message != "" && cl.topic == "":
		subject = summary(cl.message)
	case cl.message == "" && about != nil && cl.topic == "":
		subject = about.title
	case cl.message == "" && about != nil && !strings.Contains(strings.ToLower(cl.topic), strings.ToLower(about.title)):
		subject = capitalize(cl.topic) + ": " + about.title
	}
	if len(cl.emails) > 1 {
		p.notes = append(p.notes, tools.SendMail+" takes one recipient, so I'll send one email to each.")
	}
	for _, to := range cl.emails {
		p.calls = append(p.calls, call{name: tools.SendMail, args: map[string]any{
			tools.ArgTo:      to,
			tools.ArgSubject: subject,
			tools.ArgBody:    p.mailBody(to, cl, about),
		}})
	}
}

// mailBody writes an email: the message the request gives, bounded, or
// a few words on its topic, between a greeting and a sign-off in the
// request's language.
func (p *plan) mailBody(to string, cl clause, about *meeting) string {
	l := p.lang
	greeting := l.hi + ","
	if name := firstName(to); name != "" {
		greeting = l.hi + " " + name + ","
	}
	var text string
	switch {
	case greetingOnlyRE.MatchString(cl.message):
		return strings.TrimSuffix(greeting, ",") + "!\n\n" + l.regards
	case cl.message != "":
		text = excerpt(cl.message)
	case about != nil && agendaRE.MatchString(cl.topic):
		text = fmt.Sprintf("Here is the agenda for our %s on %s:\n\n1. Updates since last time\n2. Open questions\n3. Next steps",
			lowerFirst(about.title), about.when())
	case about != nil:
		text = fmt.Sprintf("I've scheduled our %s for %s. See you there!", lowerFirst(about.title), about.when())
	case l.note != "":
		text = fmt.Sprintf(l.note, cl.topic)
	default:
		text = "A quick note about the " + cl.topic
		if !cl.day.date.IsZero() {
			text += " on " + cl.day.human()
		}
		if cl.clock.known() {
			text += " at " + cl.clock.String()
		}
		text += ". Let me know if you have any questions."
	}
	return greeting + "\n\n" + text + "\n\n" + l.regards
}

var agendaRE = regexp.MustCompile(`(?i)agenda|ordre du jour|tagesordnung`)

func (p *plan) schedule(c conversation, cl clause) *meeting {
	if len(cl.emails) == 0 && p.askAddresses(cl) {
		return nil
	}
	m := meeting{title: p.meetingTitle(cl), day: cl.day, clock: cl.clock}
	var missing []string
	if len(cl.emails) == 0 && c.needsAttendees() {
		p.gaps = append(p.gaps, fmt.Sprintf("nobody is invited to the %s", p.lang.inSentence(m.title)))
		p.questions = append(p.questions, fmt.Sprintf("Who should I invite to the %s? Please give me their email addresses.", p.lang.inSentence(m.title)))
	}
	if m.day.date.IsZero() {
		missing = append(missing, "date")
	}
	if !m.clock.known() {
		missing = append(missing, "time")
	}
	if len(missing) > 0 {
		p.gaps = append(p.gaps, fmt.Sprintf("there is no %s for the %s", join(missing, "or"), p.lang.inSentence(m.title)))
		p.questions = append(p.questions, fmt.Sprintf("What %s should I schedule the %s for?", join(missing, "and"), p.lang.inSentence(m.title)))
	}
	if len(cl.emails) == 0 && c.needsAttendees() || len(missing) > 0 {
		return nil
	}
	p.calls = append(p.calls, call{name: tools.ScheduleMeeting, args: map[string]any{
		tools.ArgTitle:     m.title,
		tools.ArgAttendees: append([]string{}, cl.emails...), // [] rather than null
		tools.ArgDate:      m.day.iso(),
		tools.ArgTime:      m.clock.String(),
	}})
	return &m
}

// needsAttendees reports whether the offered schedule_meeting has
// attendees to fill in: the built-in one must invite someone.
func (c conversation) needsAttendees() bool {
	t, ok := c.offered(tools.ScheduleMeeting)
	return !ok || t.params == nil || slices.Contains(t.params, tools.ArgAttendees)
}

// cancel cancels the meeting cl names, or the one it refers back to
// ("cancel it").
func (p *plan) cancel(cl clause, before *meeting) {
	title := trimGeneric(cl.topic)
	if cl.refersToIt && before != nil && (title == "" || title == before.title) {
		title = before.title
		if cl.day.date.IsZero() {
			cl.day = before.day
		}
	}
	if title == "" {
		title = lowerFirst(p.lang.meeting)
	}
	if cl.day.date.IsZero() {
		p.gaps = append(p.gaps, fmt.Sprintf("there is no date for the %s", title))
		p.questions = append(p.questions, fmt.Sprintf("On what date is the %s you want me to cancel?", title))
		return
	}
	p.calls = append(p.calls, call{name: tools.CancelMeeting, args: map[string]any{
		tools.ArgTitle: title,
		tools.ArgDate:  cl.day.iso(),
	}})
}

// askAddresses asks for the addresses of the people cl names without
// giving one, and reports whether there were any.
func (p *plan) askAddresses(cl clause) bool {
	switch len(cl.names) {
	case 0:
		return false
	case 1:
		p.gaps = append(p.gaps, "I don't have an email address for "+cl.names[0])
		p.questions = append(p.questions, fmt.Sprintf("What is %s's email address?", cl.names[0]))
	default:
		p.gaps = append(p.gaps, "I don't have email addresses for "+join(cl.names, "and"))
		p.questions = append(p.questions, fmt.Sprintf("What are the email addresses of %s?", join(cl.names, "and")))
	}
	return true
}

// genericMeetings are words that say a meeting is meant but not which.
var genericMeetings = []string{"meeting", "call", "appointment",
	"réunion", "rendez-vous", "rdv", "appel", "besprechung", "termin", "treffen", "anruf", "reunión", "cita", "llamada"}

// meetingTitle names a meeting after its topic ("a sync" is "Sync"), or
// after its attendees when the request only says "a meeting".
func (p *plan) meetingTitle(cl clause) string {
	topic := trimGeneric(cl.topic)
	if topic != "" {
		return capitalize(topic)
	}
	title := p.lang.meeting
	if cl.topic != "" && p.lang.code == english.code {
		title = capitalize(cl.topic)
	}
	var names []string
	for _, e := range cl.emails {
		if n := firstName(e); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return title
	}
	return title + " " + p.lang.with + " " + join(names[:min(len(names), maxNames)], "and")
}

// trimGeneric drops generic words: "standup meeting" is "standup", and
// "meeting" alone is "".
func trimGeneric(topic string) string {
	words := strings.Fields(topic)
	if n := len(words); n > 0 && slices.Contains(genericMeetings, strings.ToLower(words[n-1])) {
		words = words[:n-1]
	}
	return strings.Join(words, " ")
}

// describe says what a call will do, for the model's reasoning.
func (c conversation) describe(k call) string {
	switch trainedName(k.name) {
	case tools.SendMail:
		return fmt.Sprintf("%s to %s with the subject %q and a short message", k.name, k.arg(tools.ArgTo), k.arg(tools.ArgSubject))
	case tools.ScheduleMeeting:
		s := fmt.Sprintf("%s for %q", k.name, k.arg(tools.ArgTitle))
		if who := textList(k.args[tools.ArgAttendees]); len(who) > 0 {
			s += " with " + join(who, "and")
		}
		return s + fmt.Sprintf(" on %s at %s", k.arg(tools.ArgDate), k.arg(tools.ArgTime))
	case tools.CancelMeeting:
		return fmt.Sprintf("%s for %q on %s", k.name, k.arg(tools.ArgTitle), k.arg(tools.ArgDate))
	}
	var args []string
	for _, a := range c.written(k) {
		args = append(args, a.name+" = "+jsonText(a.value))
	}
	if len(args) == 0 {
		return k.name
	}
	return k.name + " with " + join(args, "and")
}

// fit names a planned call after the offered tool that does it, which an
// MCP host may have renamed (see offered).
func (c conversation) fit(k call) call {
	if t, ok := c.offered(k.name); ok {
		k.name = t.name
	}
	return k
}

// firstName guesses a first name from an address: "john.smith@x.com" is "John".
func firstName(email string) string {
	local, _, _ := strings.Cut(email, "@")
	first := strings.FieldsFunc(local, func(r rune) bool { return r == '.' || r == '_' || r == '-' || r == '+' })
	if len(first) == 0 || len(first[0]) < 2 || strings.ContainsAny(first[0], "0123456789") {
		return ""
	}
	return capitalize(strings.ToLower(first[0]))
}

// textList reads a list of strings from an argument value.
func textList(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
