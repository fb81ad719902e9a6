package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/tools"
)

// earlier is what the turns before the request say that a follow-up can
// refer back to: "send him the agenda", "email her about it", "cancel it".
type earlier struct {
	people  []string // the addresses the last turn that named any was about
	topic   string   // the last email's subject or meeting's title
	meeting *meeting // the last meeting a call set up
}

// readEarlier reads the turns before the request, oldest first: the
// person's requests and the calls of the replies to them.
func (c conversation) readEarlier(turns []turn) earlier {
	var e earlier
	for _, t := range turns {
		switch {
		case t.role == "user" && !isResponses(t.content):
			if emails := addresses(t.content); len(emails) > 0 {
				e.people = emails
			}
		case t.role == "assistant" && !t.open:
			for _, k := range readCalls(t.content, c.dialect, c.toolNames()) {
				e.recall(k)
			}
		}
	}
	return e
}

// recall remembers what a call was about.
func (e *earlier) recall(k call) {
	switch trainedName(k.name) {
	case tools.SendMail:
		if to := k.arg(tools.ArgTo); to != "" {
			e.people = []string{to}
		}
		e.topic = k.arg(tools.ArgSubject)
	case tools.ScheduleMeeting:
		if who := textList(k.args[tools.ArgAttendees]); len(who) > 0 {
			e.people = who
		}
		e.topic = k.arg(tools.ArgTitle)
		date, _ := time.Parse(time.DateOnly, k.arg(tools.ArgDate))
		var hour, minute int
		if _, err := fmt.Sscanf(k.arg(tools.ArgTime), "%d:%d", &hour, &minute); err == nil && !date.IsZero() {
			e.meeting = &meeting{title: e.topic, day: day{date: date, said: k.arg(tools.ArgDate)},
				clock: clock{hour: hour, minute: minute, said: k.arg(tools.ArgTime)}}
		}
	case tools.CancelMeeting:
		e.topic = k.arg(tools.ArgTitle)
		e.meeting = nil
	}
	e.topic = strings.TrimSpace(e.topic)
}
