package demo

import (
	"testing"
	"time"
)

func TestFindDay(t *testing.T) {
	sunday := date("2026-11-29")
	wednesday := date("2026-11-25")
	tests := []struct {
		text  string
		today time.Time
		want  string // "" for no date
		said  string
	}{
		{"about tomorrow's standup", sunday, "2026-11-30", "tomorrow"},
		{"Today at noon", sunday, "2026-11-29", "today"},
		{"the day after tomorrow", sunday, "2026-12-01", "day after tomorrow"},
		{"on Friday", sunday, "2026-12-04", "Friday"},
		{"on Sunday", sunday, "2026-12-06", "Sunday"},
		{"next Monday", sunday, "2026-11-30", "next Monday"},
		{"on Friday", wednesday, "2026-11-27", "Friday"},
		{"this friday", wednesday, "2026-11-27", "Friday"},
		{"next Friday", wednesday, "2026-12-04", "next Friday"},
		{"on December 1", sunday, "2026-12-01", "December 1"},
		{"Nov 29th", sunday, "2026-11-29", "November 29"},
		{"the 1st of March", sunday, "2027-03-01", "March 1"},
		{"on 2026-04-01 at 10:00", sunday, "2026-04-01", "2026-04-01"},
		{"on 2026-04-01", time.Time{}, "2026-04-01", "2026-04-01"},
		{"demain à 10h", sunday, "2026-11-30", "tomorrow"},
		{"après-demain", sunday, "2026-12-01", "day after tomorrow"},
		{"übermorgen", sunday, "2026-12-01", "day after tomorrow"},
		{"pasado mañana", sunday, "2026-12-01", "day after tomorrow"},
		{"lundi prochain", wednesday, "2026-11-30", "next Monday"},
		{"nächsten Freitag", wednesday, "2026-12-04", "next Friday"},
		{"el próximo viernes", wednesday, "2026-12-04", "next Friday"},
		{"el miércoles", sunday, "2026-12-02", "Wednesday"},
		{"tomorrow", time.Time{}, "", ""},
		{"February 30", sunday, "", ""},
		{"2026-13-01", sunday, "", ""},
		{"soon", sunday, "", ""},
	}
	for _, tt := range tests {
		got := findDay(tt.text, tt.today)
		if tt.want == "" {
			if !got.date.IsZero() {
				t.Errorf("findDay(%q) = %s, want none", tt.text, got.iso())
			}
			continue
		}
		if got.iso() != tt.want || got.said != tt.said {
			t.Errorf("findDay(%q, %s) = %s (%q), want %s (%q)", tt.text, tt.today.Format(time.DateOnly), got.iso(), got.said, tt.want, tt.said)
		}
	}
}

func TestDayNote(t *testing.T) {
	today := date("2026-11-29")
	tests := []struct {
		text, want string
	}{
		{"tomorrow", "Today is Sunday, 2026-11-29, so tomorrow is Monday, 2026-11-30."},
		{"today", "Today is Sunday, 2026-11-29."},
		{"2026-12-01", "2026-12-01 is a Tuesday."},
		{"December 1", "December 1 is Tuesday, 2026-12-01."},
		{"next Friday", "Today is Sunday, 2026-11-29, so next Friday is 2026-12-04."},
	}
	for _, tt := range tests {
		if got := findDay(tt.text, today).note(today); got != tt.want {
			t.Errorf("note for %q = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestFindClock(t *testing.T) {
	tests := []struct {
		text, want string // "" for no time
	}{
		{"at 10:00", "10:00"},
		{"at 9:30 p.m.", "21:30"},
		{"10:15am", "10:15"},
		{"3pm", "15:00"},
		{"12am", "00:00"},
		{"12 pm", "12:00"},
		{"at noon", "12:00"},
		{"tomorrow at 9", "09:00"},
		{"at 3", "15:00"},
		{"at 17", "17:00"},
		{"à 10h30", "10:30"},
		{"à 14 h", "14:00"},
		{"um 15 Uhr", "15:00"},
		{"um 9", "09:00"},
		{"a las 11", "11:00"},
		{"à midi", "12:00"},
		{"10 hours", ""},
		{"on 2026-04-01", ""},
		{"at 2026-04-01", ""},
		{"the 1:1 with Bob", ""},
	}
	for _, tt := range tests {
		got := findClock(tt.text)
		if tt.want == "" && got.known() || tt.want != "" && got.String() != tt.want {
			t.Errorf("findClock(%q) = %v (known %v), want %q", tt.text, got, got.known(), tt.want)
		}
	}
}

func date(iso string) time.Time {
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		panic(err)
	}
	return t
}
