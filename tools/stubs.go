package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// The stub tools' names and their arguments' names. The schemas and
// descriptions below are written with them, and the demo model (llm/demo)
// calls the stubs by them, so that renaming a tool is one edit here, and
// renaming an argument this constant and its args struct's JSON tag (a
// test calls each stub by these names).
const (
	SendMail        = "send_mail"
	ScheduleMeeting = "schedule_meeting"
	CancelMeeting   = "cancel_meeting"

	ArgTo        = "to"        // send_mail's recipient
	ArgSubject   = "subject"   // send_mail's subject line
	ArgBody      = "body"      // send_mail's text
	ArgTitle     = "title"     // a meeting's title
	ArgAttendees = "attendees" // schedule_meeting's invitees
	ArgDate      = "date"      // a meeting's day, YYYY-MM-DD
	ArgTime      = "time"      // schedule_meeting's start, HH:MM
)

// Stubs returns send_mail, schedule_meeting and cancel_meeting: tools that
// look real to the model but do nothing. Each waits delay, a visible "work"
// time, then returns a JSON result. A cancelled ctx cuts the wait short and
// the call returns ctx.Err(). IDs in results are derived from the arguments,
// so the same call gives the same result on every run.
func Stubs(delay time.Duration) []Tool {
	return []Tool{
		Func(SendMail,
			"Send an email. Example: "+SendMail+"("+ArgTo+`="john@example.com", `+ArgSubject+`="Standup", `+ArgBody+`="I'll be 10 minutes late.")`,
			json.RawMessage(sendMailSchema),
			func(ctx context.Context, in sendMailArgs) (sentMail, error) {
				if err := work(ctx, delay); err != nil {
					return sentMail{}, err
				}
				return sentMail{Status: "sent", MessageID: shortID("msg", in), To: in.To, Subject: in.Subject}, nil
			}),
		Func(ScheduleMeeting,
			"Schedule a meeting and invite people to it. Example: "+ScheduleMeeting+"("+ArgTitle+`="Design review", `+ArgAttendees+`=["ana@example.com", "li@example.com"], `+ArgDate+`="2026-03-14", `+ArgTime+`="15:30")`,
			json.RawMessage(scheduleMeetingSchema),
			func(ctx context.Context, in scheduleMeetingArgs) (scheduledMeeting, error) {
				if err := checkDate(in.Date); err != nil {
					return scheduledMeeting{}, err
				}
				if err := work(ctx, delay); err != nil {
					return scheduledMeeting{}, err
				}
				return scheduledMeeting{
					Status: "scheduled", MeetingID: shortID("mtg", in),
					Title: in.Title, Date: in.Date, Time: in.Time, Attendees: in.Attendees,
				}, nil
			}),
		Func(CancelMeeting,
			"Cancel a meeting, found by its title and date. Example: "+CancelMeeting+"("+ArgTitle+`="Design review", `+ArgDate+`="2026-03-14")`,
			json.RawMessage(cancelMeetingSchema),
			func(ctx context.Context, in cancelMeetingArgs) (cancelledMeeting, error) {
				if err := checkDate(in.Date); err != nil {
					return cancelledMeeting{}, err
				}
				if err := work(ctx, delay); err != nil {
					return cancelledMeeting{}, err
				}
				return cancelledMeeting{Status: "cancelled", Title: in.Title, Date: in.Date}, nil
			}),
	}
}

// Property schemas that more than one stub shares.
const (
	dateProperty  = `{"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Day of the meeting as YYYY-MM-DD, e.g. 2026-03-14"}`
	titleProperty = `{"type": "string", "description": "Title of the meeting, e.g. Design review"}`
	emailItem     = `{"type": "string", "format": "email", "description": "Email address, e.g. john@example.com"}`
)

const sendMailSchema = `{
  "type": "object",
  "properties": {
    "` + ArgTo + `": {"type": "string", "format": "email", "description": "Recipient's email address, e.g. john@example.com"},
    "` + ArgSubject + `": {"type": "string", "description": "Subject line"},
    "` + ArgBody + `": {"type": "string", "description": "Text of the message"}
  },
  "required": ["` + ArgTo + `", "` + ArgSubject + `", "` + ArgBody + `"],
  "additionalProperties": false
}`

const scheduleMeetingSchema = `{
  "type": "object",
  "properties": {
    "` + ArgTitle + `": ` + titleProperty + `,
    "` + ArgAttendees + `": {"type": "array", "items": ` + emailItem + `, "minItems": 1, "description": "Email addresses of the people to invite"},
    "` + ArgDate + `": ` + dateProperty + `,
    "` + ArgTime + `": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "description": "Start time as HH:MM on a 24-hour clock, e.g. 15:30"}
  },
  "required": ["` + ArgTitle + `", "` + ArgAttendees + `", "` + ArgDate + `", "` + ArgTime + `"],
  "additionalProperties": false
}`

const cancelMeetingSchema = `{
  "type": "object",
  "properties": {
    "` + ArgTitle + `": ` + titleProperty + `,
    "` + ArgDate + `": ` + dateProperty + `
  },
  "required": ["` + ArgTitle + `", "` + ArgDate + `"],
  "additionalProperties": false
}`

type sendMailArgs struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

type sentMail struct {
	Status    string `json:"status"`
	MessageID string `json:"message_id"`
	To        string `json:"to"`
	Subject   string `json:"subject"`
}

type scheduleMeetingArgs struct {
	Title     string   `json:"title"`
	Attendees []string `json:"attendees"`
	Date      string   `json:"date"`
	Time      string   `json:"time"`
}

type scheduledMeeting struct {
	Status    string   `json:"status"`
	MeetingID string   `json:"meeting_id"`
	Title     string   `json:"title"`
	Date      string   `json:"date"`
	Time      string   `json:"time"`
	Attendees []string `json:"attendees"`
}

type cancelMeetingArgs struct {
	Title string `json:"title"`
	Date  string `json:"date"`
}

type cancelledMeeting struct {
	Status string `json:"status"`
	Title  string `json:"title"`
	Date   string `json:"date"`
}

// work stands in for the time a real tool would take, so that there is
// something for the UI's timer to show.
func work(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// checkDate catches what the schema's pattern cannot: a well-formed date
// that is not on the calendar, such as 2026-02-30.
func checkDate(date string) error {
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return fmt.Errorf("date %s does not exist", date)
	}
	return nil
}

// shortID derives an ID such as "msg-3f9a1c" from a call's arguments.
func shortID(prefix string, args any) string {
	b, _ := json.Marshal(args) // plain structs of strings always encode
	sum := sha256.Sum256(b)
	return prefix + "-" + hex.EncodeToString(sum[:3])
}
