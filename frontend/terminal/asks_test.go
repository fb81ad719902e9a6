package terminal

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tools"
)

const form = `{"type": "object", "properties": {
	"name": {"type": "string", "title": "Your name"},
	"seating": {"type": "string", "oneOf": [{"const": "in", "title": "Inside"}, {"const": "out", "title": "Terrace"}], "default": "in"},
	"guests": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
	"chair": {"type": "boolean"}
}, "required": ["name", "guests"]}`

func answer(t *testing.T, a agent.Ask, lines ...string) (agent.Reply, string) {
	t.Helper()
	in := make(chan string, len(lines))
	for _, l := range lines {
		in <- l
	}
	close(in)
	var out bytes.Buffer
	return Answerer{Lines: in, Out: &out}.Answer(t.Context(), a), out.String()
}

// chat asks a form field by field, in the server's order: a blank takes
// the default, a choice goes by its number or title, and a value out of
// bounds is asked again, saying why.
func TestChatFillsAFormFieldByField(t *testing.T) {
	a := agent.Ask{ID: 1, Kind: agent.AskElicitation, Elicitation: &tools.Elicitation{Mode: tools.ElicitForm, Message: "Book?", Schema: json.RawMessage(form)}}
	reply, out := answer(t, a, "", "", "Ada", "2", "12", "", "y")
	want := map[string]any{"name": "Ada", "seating": "out", "guests": float64(2), "chair": true}
	if reply.Action != tools.Accept || !reflect.DeepEqual(reply.Content, want) {
		t.Errorf("reply = %+v, want accept %v\n%s", reply, want, out)
	}
	for _, s := range []string{"this field is required", "Your name (string; required)", "1=Inside, 2=Terrace", `field "guests" must be from 1 to 8`} {
		if !strings.Contains(out, s) {
			t.Errorf("the prompts do not say %q:\n%s", s, out)
		}
	}
	if reply, _ := answer(t, a, "d"); reply.Action != tools.Decline {
		t.Errorf("d: %+v", reply)
	}
}

// run prints why it declined, as the events say.
func TestRunPrintsWhyItDeclined(t *testing.T) {
	var log bytes.Buffer
	r := &Renderer{Out: &bytes.Buffer{}, Log: &log}
	a := &agent.Ask{ID: 1, Kind: agent.AskElicitation, Server: "mail", Elicitation: &tools.Elicitation{Mode: tools.ElicitForm, Message: "Send it?"}}
	r.Render(agent.Event{Type: agent.ElicitationRequested, Ask: a})
	r.Render(agent.Event{Type: agent.ElicitationAnswered, Ask: a, Reply: &agent.Reply{Action: tools.Decline, Note: "declined: nobody to ask here (toolscope run)"}})
	if want := "MCP server mail asks: Send it?\n  answered: decline (declined: nobody to ask here (toolscope run))\n"; log.String() != want {
		t.Errorf("printed %q, want %q", log.String(), want)
	}
}

// A check's error quotes the server's schema: it is printed without the
// escape sequences it may hold, which the terminal would obey.
func TestFormErrorsArePrintable(t *testing.T) {
	schema := `{"type": "object", "properties": {"n": {"type": "integer", "enum": ["\u001b]0;pwned\u0007", 1]}}}`
	a := agent.Ask{ID: 1, Kind: agent.AskElicitation, Elicitation: &tools.Elicitation{Mode: tools.ElicitForm, Message: "N?", Schema: json.RawMessage(schema)}}
	_, out := answer(t, a, "", "5")
	if !strings.Contains(out, "must be one of") {
		t.Fatalf("no error printed:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("an escape sequence reached the terminal:\n%q", out)
	}
}
