package demo

import (
	"fmt"
	"slices"
	"strings"
)

// plan is what the demo model decides to do for a request: the calls to
// make, the reasoning behind them, or the questions to ask first.
type plan struct {
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
// emails bob@co.com about tomorrow's sync.
func planCalls(c conversation, clauses []clause) plan {
	var p plan
	var prev clause
	var last *meeting
	for _, cl := range clauses {
		if cl.tool == "" {
			continue
		}
		p.noteWhen(c, cl)
		if prev.tool != "" {
			cl = p.inherit(cl, prev)
		}
		switch cl.tool {
		case sendMail:
			p.mail(cl, last)
		case scheduleMeeting:
			last = p.schedule(cl)
		case cancelMeeting:
			p.cancel(cl)
		}
		prev = cl
	}
	for i, k := range p.calls {
		p.calls[i] = c.fit(k)
	}
	return p
}

// inherit fills in what cl leaves out from the clause before it.
func (p *plan) inherit(cl, prev clause) clause {
	if cl.day.date.IsZero() {
		cl.day = prev.day
	}
	if !cl.clock.known() {
		cl.clock = prev.clock
	}
	refersBack := cl.pronoun != "" || (cl.tool == sendMail && prev.tool == scheduleMeeting)
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
	if cl.topic == "" && about == nil {
		p.gaps = append(p.gaps, "it doesn't say what the email is about")
		p.questions = append(p.questions, "What should the email be about?")
		return
	}
	subject := capitalize(cl.topic)
	if about != nil && !strings.Contains(strings.ToLower(cl.topic), strings.ToLower(about.title)) {
		subject = strings.TrimSpace(about.title + " " + cl.topic)
	}
	if len(cl.emails) > 1 {
		p.notes = append(p.notes, "send_mail takes one recipient, so I'll send one email to each.")
	}
	for _, to := range cl.emails {
		p.calls = append(p.calls, call{name: sendMail, args: map[string]any{
			"to":      to,
			"subject": subject,
			"body":    mailBody(to, cl, about),
		}})
	}
}

func mailBody(to string, cl clause, about *meeting) string {
	greeting := "Hi,"
	if name := firstName(to); name != "" {
		greeting = "Hi " + name + ","
	}
	var text string
	switch {
	case about != nil && strings.Contains(strings.ToLower(cl.topic), "agenda"):
		text = fmt.Sprintf("Here is the agenda for our %s on %s:\n\n1. Updates since last time\n2. Open questions\n3. Next steps",
			lowerFirst(about.title), about.when())
	case about != nil:
		text = fmt.Sprintf("I've scheduled our %s for %s. See you there!", lowerFirst(about.title), about.when())
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
	return greeting + "\n\n" + text + "\n\nBest regards"
}

func (p *plan) schedule(cl clause) *meeting {
	if len(cl.emails) == 0 && p.askAddresses(cl) {
		return nil
	}
	m := meeting{title: meetingTitle(cl), day: cl.day, clock: cl.clock}
	var missing []string
	if m.day.date.IsZero() {
		missing = append(missing, "date")
	}
	if !m.clock.known() {
		missing = append(missing, "time")
	}
	if len(missing) > 0 {
		p.gaps = append(p.gaps, fmt.Sprintf("there is no %s for the %s", join(missing, "or"), lowerFirst(m.title)))
		p.questions = append(p.questions, fmt.Sprintf("What %s should I schedule the %s for?", join(missing, "and"), lowerFirst(m.title)))
		return nil
	}
	p.calls = append(p.calls, call{name: scheduleMeeting, args: map[string]any{
		"title":     m.title,
		"attendees": append([]string{}, cl.emails...), // [] rather than null
		"date":      m.day.iso(),
		"time":      m.clock.String(),
	}})
	return &m
}

func (p *plan) cancel(cl clause) {
	title := trimGeneric(cl.topic)
	if title == "" {
		title = "meeting"
	}
	if cl.day.date.IsZero() {
		p.gaps = append(p.gaps, fmt.Sprintf("there is no date for the %s", title))
		p.questions = append(p.questions, fmt.Sprintf("On what date is the %s you want me to cancel?", title))
		return
	}
	p.calls = append(p.calls, call{name: cancelMeeting, args: map[string]any{
		"title": title,
		"date":  cl.day.iso(),
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
var genericMeetings = []string{"meeting", "call", "appointment"}

// meetingTitle names a meeting after its topic ("a sync" is "Sync"), or
// after its attendees when the request only says "a meeting".
func meetingTitle(cl clause) string {
	topic := trimGeneric(cl.topic)
	if topic != "" {
		return capitalize(topic)
	}
	title := "Meeting"
	if cl.topic != "" {
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
	return title + " with " + join(names, "and")
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
	case sendMail:
		return fmt.Sprintf("%s to %s with the subject %q and a short message", k.name, k.arg("to"), k.arg("subject"))
	case scheduleMeeting:
		s := fmt.Sprintf("%s for %q", k.name, k.arg("title"))
		if who := textList(k.args["attendees"]); len(who) > 0 {
			s += " with " + join(who, "and")
		}
		return s + fmt.Sprintf(" on %s at %s", k.arg("date"), k.arg("time"))
	case cancelMeeting:
		return fmt.Sprintf("%s for %q on %s", k.name, k.arg("title"), k.arg("date"))
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
