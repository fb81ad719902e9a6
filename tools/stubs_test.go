package tools

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"testing"
	"time"
)

// stub returns the named stub tool, registered so that its schema is known
// to compile.
func stub(t *testing.T, delay time.Duration, name string) Tool {
	t.Helper()
	r, err := NewRegistry(Stubs(delay)...)
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := r.Lookup(name)
	if !ok {
		t.Fatalf("no stub named %q; have %v", name, r.Names())
	}
	return tool
}

// call runs tool with args, which must pass its schema check, and decodes
// the JSON result.
func call(t *testing.T, tool Tool, args string) map[string]any {
	t.Helper()
	r, err := NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(tool.Name(), json.RawMessage(args)); err != nil {
		t.Fatalf("arguments %s fail the check: %v", args, err)
	}
	out, err := tool.Call(t.Context(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.Name(), args, err)
	}
	var result map[string]any
	if err := json.Unmarshal([]byte(out), &result); err != nil {
		t.Fatalf("%s returned %q, not a JSON object: %v", tool.Name(), out, err)
	}
	return result
}

func TestStubResults(t *testing.T) {
	tests := []struct {
		tool, args string
		id         string // the field holding a generated ID, if any
		idPattern  *regexp.Regexp
		want       map[string]any // the result without the ID
	}{
		{"send_mail", `{"to": "john@example.com", "subject": "Standup", "body": "Running late."}`,
			"message_id", regexp.MustCompile(`^msg-[0-9a-f]{6}$`),
			map[string]any{"status": "sent", "to": "john@example.com", "subject": "Standup"}},
		{"schedule_meeting", `{"title": "Review", "attendees": ["ana@example.com", "li@example.com"], "date": "2028-02-29", "time": "15:30"}`,
			"meeting_id", regexp.MustCompile(`^mtg-[0-9a-f]{6}$`),
			map[string]any{"status": "scheduled", "title": "Review", "date": "2028-02-29", "time": "15:30",
				"attendees": []any{"ana@example.com", "li@example.com"}}},
		{"cancel_meeting", `{"title": "Review", "date": "2026-03-14"}`, "", nil,
			map[string]any{"status": "cancelled", "title": "Review", "date": "2026-03-14"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got := call(t, stub(t, 0, tt.tool), tt.args)
			if tt.id != "" {
				id, _ := got[tt.id].(string)
				if !tt.idPattern.MatchString(id) {
					t.Errorf("%s = %q, want a match for %s", tt.id, id, tt.idPattern)
				}
				delete(got, tt.id)
			}
			if !maps.EqualFunc(got, tt.want, func(a, b any) bool {
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				return string(ja) == string(jb)
			}) {
				t.Errorf("result = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStubIDsAreDeterministic(t *testing.T) {
	mail := stub(t, 0, "send_mail")
	const args = `{"to": "john@example.com", "subject": "Standup", "body": "Running late."}`
	first := call(t, mail, args)["message_id"]
	again := call(t, stub(t, 0, "send_mail"), args)["message_id"]
	other := call(t, mail, `{"to": "john@example.com", "subject": "Standup", "body": "On my way."}`)["message_id"]
	if first != again {
		t.Errorf("the same call gave IDs %v and %v", first, again)
	}
	if first == other {
		t.Errorf("different calls both gave ID %v", first)
	}
}

func TestStubsRejectImpossibleDates(t *testing.T) {
	tests := []struct{ tool, args, want string }{
		{"schedule_meeting", `{"title": "Review", "attendees": ["ana@example.com"], "date": "2026-02-30", "time": "10:00"}`,
			"date 2026-02-30 does not exist"},
		{"cancel_meeting", `{"title": "Review", "date": "2026-13-01"}`,
			"date 2026-13-01 does not exist"},
	}
	for _, tt := range tests {
		// A long delay: an impossible date must fail before the work starts.
		_, err := stub(t, time.Hour, tt.tool).Call(t.Context(), json.RawMessage(tt.args))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s(%s) error = %v, want %q", tt.tool, tt.args, err, tt.want)
		}
	}
}

func TestStubsStopWhenCancelled(t *testing.T) {
	args := map[string]string{
		"send_mail":        `{"to": "john@example.com", "subject": "Standup", "body": "Running late."}`,
		"schedule_meeting": `{"title": "Review", "attendees": ["ana@example.com"], "date": "2026-03-14", "time": "10:00"}`,
		"cancel_meeting":   `{"title": "Review", "date": "2026-03-14"}`,
	}
	for _, tool := range Stubs(time.Hour) {
		t.Run(tool.Name(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			go cancel()
			// Were the delay not cut short, this would block for an hour
			// and the test binary would time out.
			out, err := tool.Call(ctx, json.RawMessage(args[tool.Name()]))
			if !errors.Is(err, context.Canceled) || out != "" {
				t.Errorf("Call = %q, %v; want context.Canceled", out, err)
			}
		})
	}
}

// The stubs read their arguments by the names the catalogue's constants
// give, which the demo model writes calls with: an args struct whose JSON
// tag was left behind by a rename would read an empty value.
func TestStubsReadTheCatalogueArguments(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
		echo []string // the arguments the result repeats
	}{
		{SendMail, map[string]any{ArgTo: "john@example.com", ArgSubject: "Standup", ArgBody: "Late."}, []string{ArgTo, ArgSubject}},
		{ScheduleMeeting, map[string]any{ArgTitle: "Review", ArgAttendees: []any{"ana@example.com"}, ArgDate: "2028-02-29", ArgTime: "15:30"},
			[]string{ArgTitle, ArgAttendees, ArgDate, ArgTime}},
		{CancelMeeting, map[string]any{ArgTitle: "Review", ArgDate: "2028-02-29"}, []string{ArgTitle, ArgDate}},
	} {
		args, err := json.Marshal(c.args)
		if err != nil {
			t.Fatal(err)
		}
		got := call(t, stub(t, 0, c.tool), string(args))
		for _, name := range c.echo {
			if !reflect.DeepEqual(got[name], c.args[name]) {
				t.Errorf("%s read %s as %v, want %v", c.tool, name, got[name], c.args[name])
			}
		}
	}
}
