package streamparser

import (
	"encoding/json"
	"strings"
	"testing"
)

// WriteCalls writes what each dialect's instructions show, spaced as
// models write it, and one line per call or one list.
func TestWriteCalls(t *testing.T) {
	calls := []Draft{
		{Name: "send_mail", Args: []Arg{{"to", json.RawMessage(`"a@co.com"`)}, {"cc", json.RawMessage(`["<b@co.com>"]`)}}},
		{Name: "flag", Args: []Arg{{"on", json.RawMessage(`true`)}, {"note", json.RawMessage(`{"k": null, "s": "true \"false\" null\\"}`)}}},
	}
	mail := `{"name": "send_mail", "arguments": {"to": "a@co.com", "cc": ["<b@co.com>"]}}`
	flag := `{"name": "flag", "arguments": {"on": true, "note": {"k": null, "s": "true \"false\" null\\"}}}`
	tests := map[Dialect]string{
		Hermes: "<tool_call>\n" + mail + "\n</tool_call>\n<tool_call>\n" + flag + "\n</tool_call>",
		Marker: ">>>CALL_FUNCTION<<< " + mail + "\n>>>CALL_FUNCTION<<< " + flag,
		Pythonic: `<<function>>send_mail(to="a@co.com", cc=["<b@co.com>"])` + "\n" +
			`<<function>>flag(on=True, note={"k": None, "s": "true \"false\" null\\"})`,
		Llama3:  strings.ReplaceAll("<|python_tag|>"+mail+"\n<|python_tag|>"+flag, `"arguments"`, `"parameters"`),
		Mistral: "[TOOL_CALLS] [" + mail + ", " + flag + "]",
		Fenced:  "```json\n" + mail + "\n```\n```json\n" + flag + "\n```",
		Qwen3Coder: "<tool_call>\n<function=send_mail>\n<parameter=to>\na@co.com\n</parameter>\n<parameter=cc>\n[\"<b@co.com>\"]\n</parameter>\n</function>\n</tool_call>\n" +
			"<tool_call>\n<function=flag>\n<parameter=on>\ntrue\n</parameter>\n<parameter=note>\n{\"k\": null, \"s\": \"true \\\"false\\\" null\\\\\"}\n</parameter>\n</function>\n</tool_call>",
	}
	for _, d := range Dialects() {
		want, ok := tests[d]
		if !ok {
			t.Errorf("no test of how %s is written", d)
			continue
		}
		var b strings.Builder
		d.WriteCalls(&b, calls)
		if b.String() != want {
			t.Errorf("%s writes\n%s\nwant\n%s", d, b.String(), want)
		}
		b.Reset()
		d.WriteCalls(&b, nil)
		if b.Len() != 0 {
			t.Errorf("%s writes %q for no calls", d, b.String())
		}
	}
}

// The parser reads back what WriteCalls writes, in every dialect. A
// Qwen3-Coder value cannot hold </tool_call>, which ends its call.
func TestWriteCallsRoundTrip(t *testing.T) {
	for _, d := range Dialects() {
		closer := " </tool_call>"
		if d == Qwen3Coder {
			closer = ""
		}
		args := []Arg{{"s", json.RawMessage(`"quotes \" ' \\ (parens) [brackets] {braces}` + closer + " ```" + ` ] 🙂 \n"`)},
			{"list", json.RawMessage(`[-1.5e3, true, false, null, [], {"nested": ["x"]}]`)}}
		want := `{"s":"quotes \" ' \\ (parens) [brackets] {braces}` + closer + " ```" + ` ] 🙂 \n","list":[-1.5e3,true,false,null,[],{"nested":["x"]}]}`
		var b strings.Builder
		d.WriteCalls(&b, []Draft{{Name: "a", Args: args}, {Name: "a"}})
		evs := merge(run(Options{Dialect: d, Tools: testTools, Schemas: testSchemas}, []string{"Sure.\n" + b.String()}))
		var got []ev
		for _, e := range evs {
			if e.Kind == CallParsed || e.Kind == CallInvalid {
				got = append(got, e)
			}
		}
		if len(got) != 2 || got[0].Name != "a" || got[0].Args != want || got[1].Name != "a" || got[1].Args != "{}" {
			t.Errorf("%s: %s reads as %v", d, b.String(), got)
		}
	}
}

// NewDraft keeps the arguments' order, and their values as written.
func TestNewDraft(t *testing.T) {
	d, err := NewDraft("send_mail", json.RawMessage(` {"to": "a@co.com", "cc": ["b"], "at": {"h": 9}} `))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Hermes.WriteCalls(&b, []Draft{d})
	if want := "<tool_call>\n" + `{"name": "send_mail", "arguments": {"to": "a@co.com", "cc": ["b"], "at": {"h": 9}}}` + "\n</tool_call>"; b.String() != want {
		t.Errorf("written back as\n%s\nwant\n%s", b.String(), want)
	}
	if d, err := NewDraft("none", json.RawMessage(`{}`)); err != nil || len(d.Args) != 0 {
		t.Errorf("NewDraft of {} = %+v, %v", d, err)
	}
	for _, bad := range []string{``, `[1]`, `"x"`, `{"a": }`, `{"a": 1`, `{"a": 1} {}`} {
		if _, err := NewDraft("x", json.RawMessage(bad)); err == nil {
			t.Errorf("NewDraft accepts %q", bad)
		}
	}
}
