package streamparser

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every dialect has a name, instructions that show its marker, and marks
// that the parser acts on: each opening mark opens what it says, and each
// closing mark closes it.
func TestEveryDialectIsComplete(t *testing.T) {
	if len(Dialects()) == 0 || Dialects()[0] != Hermes {
		t.Fatalf("Dialects() = %v, want Hermes first", Dialects())
	}
	for i, d := range Dialects() {
		if int(d) != i || syntaxes[d] == nil {
			t.Fatalf("Dialect(%d) is not defined: dialect numbers must follow one another", i)
		}
		if !strings.Contains(d.Instructions(), d.Marker()) {
			t.Errorf("the %s instructions do not show its marker %q", d, d.Marker())
		}
		desc := d.Describe()
		if desc.Name != d.String() {
			t.Errorf("%s describes itself as %q", d, desc.Name)
		}
		for _, m := range desc.Marks {
			checkMark(t, d, m)
		}
	}
}

// checkMark feeds the parser a reply in which m opens or closes its
// region, and checks that the parser's events say the same.
func checkMark(t *testing.T, d Dialect, m Mark) {
	t.Helper()
	var input string
	var opts Options
	var want Kind
	switch {
	case m.Opens == ThinkRegion:
		input, want = m.Text+"x", ThinkingOpen
	case m.Closes == ThinkRegion:
		input, want, opts.InThinking = "x"+m.Text, ThinkingClose, true
	case m.Opens == CallRegion:
		input, want = m.Text, CallOpen
	case m.Closes == CallRegion:
		input, want = d.Marker()+"{}"+m.Text, CallParsed
	default:
		t.Errorf("%s: mark %q neither opens nor closes a region", d, m.Text)
		return
	}
	opts.Dialect = d
	evs := merge(run(opts, []string{input}))
	for _, e := range evs {
		if e.Kind == want {
			return
		}
		if want == CallParsed && e.Kind == CallInvalid && e.Written == input {
			return // closed, if not runnable: "{}" names no tool
		}
	}
	t.Errorf("%s: %q gives %v, want a %v event", d, input, evs, want)
}

// The description is part of the run_started event: its JSON is stable.
func TestDescribeJSON(t *testing.T) {
	marshal := func(v any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(b.String())
	}
	got := marshal(Hermes.Describe())
	want := `{"name":"hermes","marks":[{"text":"<think>","opens":"think"},{"text":"</think>","closes":"think"},` +
		`{"text":"<tool_call>","opens":"call"},{"text":"</tool_call>","closes":"call"}]}`
	if got != want {
		t.Errorf("Hermes.Describe() is\n%s\nwant\n%s", got, want)
	}
	got = marshal(Mistral.Describe())
	want = `{"name":"mistral","marks":[{"text":"<think>","opens":"think"},{"text":"</think>","closes":"think"},` +
		`{"text":"[TOOL_CALLS]","opens":"call"}]}`
	if got != want {
		t.Errorf("Mistral.Describe() is\n%s\nwant\n%s", got, want)
	}
}

func TestOpensThinking(t *testing.T) {
	for prompt, want := range map[string]bool{
		"<|im_start|>assistant\n<think>\n":               true,
		"<|im_start|>assistant\n<think> \n\n":            true,
		"<|im_start|>assistant\n":                        false,
		"<|im_start|>assistant\n<think>\n\n</think>\n\n": false,
		"": false,
	} {
		if got := OpensThinking(prompt); got != want {
			t.Errorf("OpensThinking(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// While a call is open, the deltas it has carried end where the parser
// has read up to: at the end of what was fed, less Pending. A screen that
// shows the raw stream relies on it to place the call.
func TestOpenCallEndsBeforePending(t *testing.T) {
	for _, c := range corpus() {
		if len(c.input) > 4096 {
			continue
		}
		for _, chunks := range [][]string{splitEvery(c.input, 1), splitEvery(c.input, 3), splitEvery(c.input, 7)} {
			p := mustNew(c.opts)
			var fed, raw strings.Builder
			open := false
			emit := func(e Event) {
				switch e.Kind {
				case CallOpen:
					open = true
					raw.Reset()
				case CallDelta:
					raw.WriteString(e.Text)
				case CallParsed, CallInvalid:
					open = false
				}
			}
			for _, s := range chunks {
				p.Feed(s, emit)
				fed.WriteString(s)
				read := strings.TrimSuffix(fed.String(), p.Pending())
				if open && !strings.HasSuffix(read, raw.String()) {
					t.Fatalf("%s: after %q, the open call's deltas %q do not end the text read, %q", c.name, s, raw.String(), read)
				}
			}
		}
	}
}
