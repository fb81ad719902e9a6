package demo

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/streamparser"
	"github.com/toolscope/toolscope/tools"
)

// everyday is a request worded the way people at a workshop type, and
// what a sensible model makes of it: calls, or a question and no call.
type everyday struct {
	earlier []string // requests made before it in the same conversation
	request string
	calls   []wantCall
	ask     []string // what the question must mention when there is no call
}

// wantCall is a call the request should make. args are checked exactly,
// subject exactly when set, and the body must hold each of body.
type wantCall struct {
	name    string
	args    map[string]any
	subject string
	body    []string
}

func mail(to, subject string, body ...string) wantCall {
	return wantCall{name: "send_mail", args: map[string]any{"to": to}, subject: subject, body: body}
}

func meet(title string, attendees []any, date, clock string) wantCall {
	return wantCall{name: "schedule_meeting", args: map[string]any{"title": title, "attendees": attendees, "date": date, "time": clock}}
}

func cancelling(title, date string) wantCall {
	return wantCall{name: "cancel_meeting", args: map[string]any{"title": title, "date": date}}
}

func people(emails ...string) []any {
	var out []any
	for _, e := range emails {
		out = append(out, e)
	}
	return out
}

// Today is Sunday 2026-11-29 (testNow): tomorrow is 2026-11-30, Friday
// 2026-12-04.
var everydayRequests = []everyday{
	// English: a verb, an address, and the message after "saying",
	// "that", ":" or nothing at all.
	{request: "Send an email to x@y.com saying hi", calls: []wantCall{mail("x@y.com", "Hi", "Hi!")}},
	{request: "Email bob@co.com that I'll be late", calls: []wantCall{mail("bob@co.com", "I'll be late", "Hi Bob,", "I'll be late.")}},
	{request: "Send bob@co.com a note: lunch is at noon", calls: []wantCall{mail("bob@co.com", "Lunch is at noon", "Lunch is at noon.")}},
	{request: "Tell bob@co.com I'm running late", calls: []wantCall{mail("bob@co.com", "I'm running late", "I'm running late.")}},
	{request: "Let alice@co.com know that the build is green", calls: []wantCall{mail("alice@co.com", "The build is green", "Hi Alice,", "The build is green.")}},
	{request: "Write to alice@co.com: the demo moved to Friday", calls: []wantCall{mail("alice@co.com", "The demo moved to Friday", "The demo moved to Friday.")}},
	{request: "Send an email to carol@co.com to say the printer is fixed", calls: []wantCall{mail("carol@co.com", "The printer is fixed", "The printer is fixed.")}},
	{request: "Remind dan@co.com to send the slides", calls: []wantCall{mail("dan@co.com", "Reminder: send the slides", "reminder to send the slides")}},
	{request: "Ping frank@co.com that the server is back up", calls: []wantCall{mail("frank@co.com", "The server is back up", "The server is back up.")}},
	{request: "Email grace@co.com about the launch", calls: []wantCall{mail("grace@co.com", "Launch", "launch")}},
	{request: "Send the minutes to heidi@co.com", calls: []wantCall{mail("heidi@co.com", "Minutes", "minutes")}},
	{request: `Email ivy@co.com "Cake in the kitchen!"`, calls: []wantCall{mail("ivy@co.com", "Cake in the kitchen", "Cake in the kitchen!")}},
	{request: "Tell lou@co.com her taxi is outside", calls: []wantCall{mail("lou@co.com", "Her taxi is outside", "Her taxi is outside.")}},
	{request: "Tell jo@co.com to call me back", calls: []wantCall{mail("jo@co.com", "Please call me back", "Please call me back.")}},
	{request: "Email kim@co.com that the quarterly report is ready for review and needs a sign-off by Friday",
		calls: []wantCall{mail("kim@co.com", "The quarterly report is ready", "The quarterly report is ready for review")}},
	// Casing typed carelessly.
	{request: "email IVAN@CO.COM saying HELLO THERE", calls: []wantCall{mail("ivan@co.com", "Hello there", "Hi Ivan!")}},
	{request: "SEND AN EMAIL TO JUDY@CO.COM SAYING THE REPORT IS READY", calls: []wantCall{mail("judy@co.com", "The report is ready", "The report is ready.")}},
	{request: "schedule A SYNC with uma@co.com TOMORROW at 9am", calls: []wantCall{meet("SYNC", people("uma@co.com"), "2026-11-30", "09:00")}},
	{request: "cancel THE STANDUP on friday", calls: []wantCall{cancelling("STANDUP", "2026-12-04")}},
	// Polite forms.
	{request: "Could you please email ken@co.com that the invoice was paid?", calls: []wantCall{mail("ken@co.com", "The invoice was paid", "The invoice was paid.")}},
	{request: "Can you tell leo@co.com the meeting moved to 3pm?", calls: []wantCall{mail("leo@co.com", "The meeting moved to 3pm", "The meeting moved to 3pm.")}},
	{request: "Please let mia@co.com know I'm out sick today", calls: []wantCall{mail("mia@co.com", "I'm out sick today", "I'm out sick today.")}},
	{request: "Hey, could you send nick@co.com a quick message saying the keys are at reception", calls: []wantCall{mail("nick@co.com", "The keys are at reception", "The keys are at reception.")}},
	{request: "Would you kindly schedule a design review with ana@co.com on Friday at 2pm?", calls: []wantCall{meet("Design review", people("ana@co.com"), "2026-12-04", "14:00")}},
	{request: "Please set up a budget review with sam@co.com and tia@co.com next Monday at 2pm",
		calls: []wantCall{meet("Budget review", people("sam@co.com", "tia@co.com"), "2026-11-30", "14:00")}},
	// Details left out: the model asks rather than guess.
	{request: "Tell John I'm running late", ask: []string{"John's email address"}},
	{request: "Send an email saying I'll be late", ask: []string{"Who should I send the email to?"}},
	{request: "Email olga@co.com", ask: []string{"What should the email be about?"}},
	{request: "Schedule a meeting tomorrow at 10", ask: []string{"Who should I invite", "email addresses"}},
	{request: "Schedule a meeting with quinn@co.com", ask: []string{"date and time"}},
	{request: "Book a call with rob@co.com on Friday", ask: []string{"What time"}},
	{request: "Schedule a meeting", ask: []string{"Who should I invite", "date and time"}},
	{request: "Cancel the standup", ask: []string{"what date", "standup"}},
	{request: "Send him the agenda", ask: []string{`Who do you mean by "him"?`}},
	// Verbs that need no tool here.
	{request: "Tell me a joke", ask: []string{"demo model", "can't really answer"}},
	{request: "Write a poem about spring", ask: []string{"demo model", "can't really answer"}},
	{request: "What's the plan for today?", ask: []string{"demo model", "can't really answer"}},
	// Several things in one request.
	{request: "Schedule a sync with bob@co.com tomorrow at 9 and email him the agenda", calls: []wantCall{
		meet("Sync", people("bob@co.com"), "2026-11-30", "09:00"),
		mail("bob@co.com", "Agenda: Sync", "agenda")}},
	{request: "Email vic@co.com saying the report is ready and cancel the standup on Friday", calls: []wantCall{
		mail("vic@co.com", "The report is ready", "The report is ready."),
		cancelling("standup", "2026-12-04")}},
	{request: "Tell wes@co.com I'm late, then cancel tomorrow's standup", calls: []wantCall{
		mail("wes@co.com", "I'm late", "I'm late."),
		cancelling("standup", "2026-11-30")}},
	{request: "Email bob@co.com and tell him the room changed to B12", calls: []wantCall{mail("bob@co.com", "The room changed to B12", "The room changed to B12.")}},
	{request: "Email alice@co.com and bob@co.com that the office is closed on Friday", calls: []wantCall{
		mail("alice@co.com", "The office is closed on Friday", "Hi Alice,", "The office is closed on Friday."),
		mail("bob@co.com", "The office is closed on Friday", "Hi Bob,", "The office is closed on Friday.")}},
	// French.
	{request: "Envoie un email à marie@exemple.fr pour lui dire que la réunion est reportée",
		calls: []wantCall{mail("marie@exemple.fr", "La réunion est reportée", "Bonjour Marie,", "La réunion est reportée.", "Cordialement")}},
	{request: "Dis à paul@exemple.fr que je serai en retard", calls: []wantCall{mail("paul@exemple.fr", "Je serai en retard", "Bonjour Paul,", "Je serai en retard.")}},
	{request: "Planifie une réunion avec luc@exemple.fr demain à 10h", calls: []wantCall{meet("Réunion avec Luc", people("luc@exemple.fr"), "2026-11-30", "10:00")}},
	{request: "Annule la réunion de lundi", calls: []wantCall{cancelling("réunion", "2026-11-30")}},
	{request: "Pourriez-vous envoyer un mail à anne@exemple.fr au sujet du budget ?", calls: []wantCall{mail("anne@exemple.fr", "Budget", "Bonjour Anne,", "budget")}},
	{request: "Envoie un mail pour dire que je suis malade", ask: []string{"Who should I send the email to?"}},
	{request: "Organise une réunion avec luc@exemple.fr vendredi", ask: []string{"What time"}},
	// German.
	{request: "Schick eine E-Mail an anna@beispiel.de, dass das Meeting verschoben ist",
		calls: []wantCall{mail("anna@beispiel.de", "Das Meeting verschoben ist", "Hallo Anna,", "Das Meeting verschoben ist.", "Viele Grüße")}},
	{request: "Sag tom@firma.de, dass ich später komme", calls: []wantCall{mail("tom@firma.de", "Ich später komme", "Hallo Tom,")}},
	{request: "Plane ein Meeting mit eva@firma.de morgen um 15 Uhr", calls: []wantCall{meet("Besprechung mit Eva", people("eva@firma.de"), "2026-11-30", "15:00")}},
	{request: "Sag das Standup am Freitag ab", calls: []wantCall{cancelling("Standup", "2026-12-04")}},
	{request: "Könntest du bitte eine E-Mail an max@firma.de schicken: Das Essen ist um 12 fertig",
		calls: []wantCall{mail("max@firma.de", "Das Essen ist um 12 fertig", "Das Essen ist um 12 fertig.")}},
	{request: "Plane ein Meeting morgen um 9 Uhr", ask: []string{"Who should I invite"}},
	// Spanish.
	{request: "Envía un correo a luis@ejemplo.es diciendo que llego tarde", calls: []wantCall{mail("luis@ejemplo.es", "Llego tarde", "Hola Luis,", "Llego tarde.", "Saludos")}},
	{request: "Dile a ana@ejemplo.es que la reunión es mañana", calls: []wantCall{mail("ana@ejemplo.es", "La reunión es mañana", "Hola Ana,")}},
	{request: "Programa una reunión con pedro@ejemplo.es el viernes a las 11", calls: []wantCall{meet("Reunión con Pedro", people("pedro@ejemplo.es"), "2026-12-04", "11:00")}},
	{request: "Cancela la reunión del lunes", calls: []wantCall{cancelling("reunión", "2026-11-30")}},
	{request: "¿Puedes enviar un correo a sara@ejemplo.es sobre el presupuesto?", calls: []wantCall{mail("sara@ejemplo.es", "Presupuesto", "Hola Sara,")}},
	{request: "Programa una reunión con pedro@ejemplo.es mañana", ask: []string{"What time"}},
	// Follow-ups that refer back to earlier turns.
	{earlier: []string{"Schedule a meeting with bob@co.com tomorrow at 10"}, request: "Send him the agenda",
		calls: []wantCall{mail("bob@co.com", "Agenda: Meeting with Bob", "Hi Bob,", "agenda", "Monday, November 30 at 10:00")}},
	{earlier: []string{"Email carol@co.com about the launch"}, request: "Schedule a call with her on Friday at 2pm",
		calls: []wantCall{meet("Call with Carol", people("carol@co.com"), "2026-12-04", "14:00")}},
	{earlier: []string{"Schedule a budget review with ana@co.com on Friday at 2pm"}, request: "Email her about it",
		calls: []wantCall{mail("ana@co.com", "Budget review", "Hi Ana,", "budget review")}},
	{earlier: []string{"Schedule a budget review with ana@co.com on Friday at 2pm"}, request: "Cancel it",
		calls: []wantCall{cancelling("Budget review", "2026-12-04")}},
	{earlier: []string{"Planifie une réunion avec luc@exemple.fr demain à 10h", "Dis-lui que j'arrive"}, request: "Annule-la",
		calls: []wantCall{cancelling("Réunion avec Luc", "2026-11-30")}},
	{earlier: []string{"Plane ein Meeting mit eva@firma.de morgen um 15 Uhr"}, request: "Sag sie bitte ab",
		calls: []wantCall{cancelling("Besprechung mit Eva", "2026-11-30")}},
	{earlier: []string{"Tell dave@co.com I'm late"}, request: "Tell him I'm here now", calls: []wantCall{mail("dave@co.com", "I'm here now", "I'm here now.")}},
	{earlier: []string{"Send an email to x@y.com saying hi", "Schedule a sync with zed@co.com tomorrow at 9"}, request: "Email them that I'll bring snacks",
		calls: []wantCall{mail("zed@co.com", "I'll bring snacks", "I'll bring snacks.")}},
	{earlier: []string{"Dis à paul@exemple.fr que je serai en retard"}, request: "Dis-lui que j'arrive", calls: []wantCall{mail("paul@exemple.fr", "J'arrive", "Bonjour Paul,")}},
	{earlier: []string{"Programa una reunión con pedro@ejemplo.es el viernes a las 11"}, request: "Envíale un correo diciendo que llevo el informe",
		calls: []wantCall{mail("pedro@ejemplo.es", "Llevo el informe", "Hola Pedro,")}},
	{earlier: []string{"Plane ein Meeting mit eva@firma.de morgen um 15 Uhr"}, request: "Schick ihr eine E-Mail, dass ich den Raum buche",
		calls: []wantCall{mail("eva@firma.de", "Ich den Raum buche", "Hallo Eva,")}},
}

// chatRun is the last run of a conversation with the demo model.
type chatRun struct {
	calls []*agent.Call // the calls of its first round
	text  string        // its answer
}

// converse runs each request in turn on one conversation, the way the
// chat front end does, and returns the last run.
func converse(t *testing.T, requests ...string) chatRun {
	t.Helper()
	reg, err := tools.NewRegistry(offer(t, allTools...)...)
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Config{Backend: New(Config{}), Tools: reg, Dialect: streamparser.Hermes, Now: func() time.Time { return testNow }})
	var conv agent.Conversation
	var last chatRun
	for _, r := range requests {
		last = chatRun{}
		res := a.Run(context.Background(), &conv, r, func(e agent.Event) {
			if (e.Type == agent.ToolCallParsed || e.Type == agent.ToolCallInvalid) && e.Round == 1 {
				last.calls = append(last.calls, e.Call)
			}
		})
		last.text = res.Text
	}
	return last
}

func TestEverydayRequests(t *testing.T) {
	if n := len(everydayRequests); n < 50 {
		t.Fatalf("only %d everyday requests; the table should hold 50 or more", n)
	}
	for _, tt := range everydayRequests {
		t.Run(tt.request, func(t *testing.T) {
			got := converse(t, append(tt.earlier, tt.request)...)
			if len(tt.calls) == 0 {
				if len(got.calls) > 0 {
					t.Fatalf("want a question, got call %s(%s)", got.calls[0].Name, got.calls[0].Arguments)
				}
				for _, s := range tt.ask {
					if !strings.Contains(strings.ToLower(got.text), strings.ToLower(s)) {
						t.Errorf("question %q does not mention %q", got.text, s)
					}
				}
				return
			}
			if len(got.calls) != len(tt.calls) {
				t.Fatalf("got %d calls %v, want %d (answer %q)", len(got.calls), describeCalls(got.calls), len(tt.calls), got.text)
			}
			for i, w := range tt.calls {
				checkCall(t, tt.request, got.calls[i], w)
			}
		})
	}
}

func describeCalls(calls []*agent.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Name+string(c.Arguments))
	}
	return out
}

// checkCall checks a call against what is wanted, and that its subject
// is a short summary and its body a bounded message, never the request
// copied out.
func checkCall(t *testing.T, request string, c *agent.Call, w wantCall) {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal(c.Arguments, &args); err != nil || c.Name != w.name {
		t.Fatalf("call %s(%s), want %s (%v)", c.Name, c.Arguments, w.name, err)
	}
	for k, v := range w.args {
		if !reflect.DeepEqual(args[k], v) {
			t.Errorf("%s %s = %#v, want %#v", c.Name, k, args[k], v)
		}
	}
	if w.name != "send_mail" {
		return
	}
	subject, _ := args["subject"].(string)
	body, _ := args["body"].(string)
	if w.subject != "" && subject != w.subject {
		t.Errorf("subject = %q, want %q", subject, w.subject)
	}
	if len(strings.Fields(subject)) > maxSubjectWords || strings.Contains(subject, "@") || strings.EqualFold(subject, request) {
		t.Errorf("subject %q is not a short summary", subject)
	}
	if utf8.RuneCountInString(body) > maxBodyRunes+100 || strings.Contains(body, request) {
		t.Errorf("body %q copies the request or is too long", body)
	}
	for _, s := range w.body {
		if !strings.Contains(body, s) {
			t.Errorf("body %q does not hold %q", body, s)
		}
	}
}
