package demo

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/tools"
)

// outcome is a tool call and the <tool_response> it got.
type outcome struct {
	call   call
	result string         // the response text
	fields map[string]any // result as a JSON object; nil when it is not one
	err    string         // the error the tool reported; "" on success
}

func newOutcome(k call, result string) outcome {
	o := outcome{call: k, result: strings.TrimSpace(result)}
	if json.Unmarshal([]byte(o.result), &o.fields) == nil {
		if e, ok := o.fields["error"]; ok {
			o.err = clip(strings.TrimRight(fmt.Sprint(e), "."))
		}
	}
	return o
}

// answer replies once the tools have answered: a corrected call when a
// call failed on an argument the request settles (at most one retry per
// request), else the answer that reports every result.
func answer(c conversation) reply {
	outcomes := finalOutcomes(c.rounds)
	// The last round's outcomes are never left out, so they end the list.
	last := outcomes[len(outcomes)-len(c.rounds[len(c.rounds)-1].responses):]
	var thinking []string
	for i, o := range last {
		note := o.note()
		if i == 0 {
			note = "Okay, " + lowerFirst(note)
		}
		thinking = append(thinking, note)
	}
	failed := slices.ContainsFunc(last, func(o outcome) bool { return o.err != "" })
	switch {
	case !failed:
		thinking = append(thinking, "Everything worked, so I'll confirm.")
	case len(c.rounds) > 1:
		thinking = append(thinking, "I already retried once, so I'll tell the user what went wrong.")
	default:
		if retries, notes := corrections(c, last); len(retries) > 0 {
			return reply{thinking: append(thinking, notes...), calls: retries}
		}
		thinking = append(thinking, "Changing the arguments won't fix that, so I'll tell the user.")
	}
	var text []string
	for _, o := range outcomes {
		text = append(text, o.sentence())
	}
	return reply{thinking: thinking, text: strings.Join(text, " ")}
}

// finalOutcomes pairs every call since the request with its result, in
// order, leaving out each failure that a call of the same tool in a later
// round retried.
func finalOutcomes(rounds []round) []outcome {
	var all []outcome
	retried := map[int]bool{}
	for _, r := range rounds {
		earlier := len(all)
		for i, result := range r.responses {
			var k call
			if i < len(r.calls) {
				k = r.calls[i]
			}
			for j, o := range all[:earlier] {
				if o.err != "" && o.call.name == k.name && !retried[j] {
					retried[j] = true
					break
				}
			}
			all = append(all, newOutcome(k, result))
		}
	}
	var kept []outcome
	for i, o := range all {
		if !retried[i] {
			kept = append(kept, o)
		}
	}
	return kept
}

// corrections rewrites failed calls whose error names an argument that
// the request itself settles differently, e.g. a date written as
// "tomorrow" where the tool wants 2026-11-30. It returns the calls to
// make again and the reasoning behind them.
func corrections(c conversation, outcomes []outcome) (retries []call, notes []string) {
	_, ours := c.intent()
	seen := map[string]int{}
	for _, o := range outcomes {
		nth := seen[o.call.name]
		seen[o.call.name]++
		want, ok := nthCall(ours.calls, o.call.name, nth)
		if o.err == "" || !ok {
			continue
		}
		fixed := call{name: o.call.name, args: maps.Clone(o.call.args)}
		if fixed.args == nil {
			fixed.args = map[string]any{}
		}
		changed := false
		for _, p := range c.places(want) {
			was, v := o.call.args[p.learnt], want.args[p.learnt]
			if !mentions(o.err, p.offered) || jsonText(was) == jsonText(v) {
				continue
			}
			fixed.args[p.learnt] = v
			changed = true
			notes = append(notes, fmt.Sprintf("The %s argument was %s, but from the request it should be %s.", p.offered, jsonText(was), jsonText(v)))
		}
		if changed {
			retries = append(retries, fixed)
			notes = append(notes, fmt.Sprintf("I'll call %s again with that fixed.", o.call.name))
		}
	}
	return retries, notes
}

func nthCall(calls []call, name string, n int) (call, bool) {
	for _, k := range calls {
		if k.name == name {
			if n == 0 {
				return k, true
			}
			n--
		}
	}
	return call{}, false
}

// mentions reports whether an error message names a parameter: quoted,
// as a JSON pointer ("/date"), or, for names too long to be a common
// word like "to", as a plain word.
func mentions(msg, param string) bool {
	pattern := "['\"`/]" + regexp.QuoteMeta(param) + `\b`
	if len(param) > 2 {
		pattern += `|\b` + regexp.QuoteMeta(param) + `\b`
	}
	return regexp.MustCompile(pattern).MatchString(msg)
}

// note is what the model thinks on reading the result.
func (o outcome) note() string {
	name := o.call.name
	if name == "" {
		name = "The tool call"
	}
	if o.err != "" {
		return fmt.Sprintf("%s failed: %s.", name, o.err)
	}
	return fmt.Sprintf("%s returned %s.", name, clip(o.result))
}

// sentence reports the outcome to the person.
func (o outcome) sentence() string {
	k := o.call
	trained := trainedName(k.name)
	if skills[trained].sum != nil {
		return o.sumSentence()
	}
	to := o.text("to")
	if to == "" {
		to = k.arg(tools.ArgTo)
	}
	if o.err != "" {
		switch trained {
		case tools.SendMail:
			return fmt.Sprintf("I couldn't send the email to %s: %s.", to, o.err)
		case tools.ScheduleMeeting:
			return fmt.Sprintf("I couldn't schedule %q: %s.", k.arg(tools.ArgTitle), o.err)
		case tools.CancelMeeting:
			return fmt.Sprintf("I couldn't cancel %q: %s.", k.arg(tools.ArgTitle), o.err)
		}
		if k.name == "" {
			return fmt.Sprintf("A tool call failed: %s.", o.err)
		}
		return fmt.Sprintf("%s failed: %s.", k.name, o.err)
	}
	switch trained {
	case tools.SendMail:
		return fmt.Sprintf("Your email to %s has been sent%s.", to, o.reference())
	case tools.ScheduleMeeting:
		s := fmt.Sprintf("I scheduled %q", k.arg(tools.ArgTitle))
		if who := textList(k.args[tools.ArgAttendees]); len(who) > 0 {
			s += " with " + join(who, "and")
		}
		return s + " for " + humanDate(k.arg(tools.ArgDate)) + " at " + k.arg(tools.ArgTime) + o.reference() + "."
	case tools.CancelMeeting:
		return fmt.Sprintf("I cancelled %q on %s%s.", k.arg(tools.ArgTitle), humanDate(k.arg(tools.ArgDate)), o.reference())
	}
	if k.name == "" {
		return fmt.Sprintf("The tool returned: %s.", clip(o.result))
	}
	return fmt.Sprintf("%s returned: %s.", k.name, clip(o.result))
}

// reference names the id a tool gave back, e.g. " (message id msg-1a2b3c)".
func (o outcome) reference() string {
	for _, k := range slices.Sorted(maps.Keys(o.fields)) {
		if (k == "id" || strings.HasSuffix(k, "_id")) && o.text(k) != "" {
			return fmt.Sprintf(" (%s %s)", strings.ReplaceAll(k, "_", " "), o.text(k))
		}
	}
	return ""
}

func (o outcome) text(field string) string {
	s, _ := o.fields[field].(string)
	return s
}

func humanDate(iso string) string {
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return iso
	}
	return t.Format("Monday, January 2")
}

// clip shortens a long result so that the reasoning stays readable.
func clip(s string) string {
	const max = 200
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}
