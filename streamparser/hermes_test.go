package streamparser

import "strings"

// hcall is a well-formed Hermes call and hbad an invalid one, written
// between the tags.
func hcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, "<tool_call>"+raw+"</tool_call>")
}
func hbad(i int, raw, reason string) []ev {
	return bad(i, raw, "<tool_call>"+raw+"</tool_call>", reason)
}

var bigArg = strings.Repeat("ab\"c\\ 🙂</tool_call>", 256*1024/25)

func hermesCases() []parserCase {
	sendRaw := "\n{\"name\": \"send_mail\", \"arguments\": {\"to\": \"john@example.com\", \"subject\": \"Standup\"}}\n"
	sendArgs := `{"to":"john@example.com","subject":"Standup"}`
	return []parserCase{
		{name: "plain", input: "Hello, world.", want: seq(txt("Hello, world."))},
		{name: "empty", input: "", want: nil},
		{name: "less-than in text", input: "if a < b and b<c then <3", want: seq(txt("if a < b and b<c then <3"))},
		{name: "less-than in thinking", input: "<think>a<b, <thin</think>ok", want: seq(thought("a<b, <thin"), txt("ok"))},
		{name: "almost a tag", input: "<tool" + "x> is not a tag", want: seq(txt("<toolx> is not a tag"))},
		{name: "partial tag at end", input: "see <tool_ca", want: seq(txt("see <tool_ca"))},
		{name: "double less-than", input: "<<think>x</think>", want: seq(txt("<"), thought("x"))},
		{name: "closing think in text", input: "a </think> b", want: seq(txt("a </think> b"))},
		{
			name:  "a stray quote spoils only its own call",
			input: "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"body\": \"he is 6\" tall\"}}\n</tool_call>\nI sent it.\n<tool_call>{\"name\": \"b\"}</tool_call>",
			want: seq(hbad(0, "\n{\"name\": \"a\", \"arguments\": {\"body\": \"he is 6\" tall\"}}\n", "not valid JSON"),
				txt("\nI sent it.\n"), hcall(1, "b", `{}`, `{"name": "b"}`)),
		},
		{name: "other dialects are text", input: `>>>CALL_FUNCTION<<<{"name":"a"} [TOOL_CALLS][] a() ` + "```json\n{}\n```", want: seq(txt(`>>>CALL_FUNCTION<<<{"name":"a"} [TOOL_CALLS][] a() ` + "```json\n{}\n```"))},
		{
			name:  "thinking then call then text",
			input: "<think>\nI should email John.\n</think>\n\n<tool_call>" + sendRaw + "</tool_call>\nDone.",
			want: seq(thought("\nI should email John.\n"), txt("\n\n"),
				hcall(0, "send_mail", sendArgs, sendRaw), txt("\nDone.")),
		},
		{
			name:  "prompt opened thinking",
			opts:  Options{InThinking: true},
			input: "plan</think>answer",
			want:  seq(think("plan"), ev{Kind: ThinkingClose}, txt("answer")),
		},
		{
			name:  "tool call inside thinking is thinking",
			input: "<think>maybe <tool_call>{\"name\":\"x\"}</tool_call></think>no",
			want:  seq(thought("maybe <tool_call>{\"name\":\"x\"}</tool_call>"), txt("no")),
		},
		{
			name:  "closing tag inside a JSON string",
			input: `<tool_call>{"name": "note", "arguments": {"text": "write </tool_call> \"quoted\" \\"}}</tool_call>`,
			want: seq(hcall(0, "note", `{"text":"write </tool_call> \"quoted\" \\"}`,
				`{"name": "note", "arguments": {"text": "write </tool_call> \"quoted\" \\"}}`)),
		},
		{
			name:  "empty object and array arguments",
			input: `<tool_call>{"name":"a","arguments":{}}</tool_call><tool_call>{"name":"b","arguments":{"xs":[],"o":{}}}</tool_call>`,
			want: seq(hcall(0, "a", `{}`, `{"name":"a","arguments":{}}`),
				hcall(1, "b", `{"xs":[],"o":{}}`, `{"name":"b","arguments":{"xs":[],"o":{}}}`)),
		},
		{
			name:  "three calls with text between",
			input: "<tool_call>{\"name\":\"a\"}</tool_call> and <tool_call>{\"name\":\"ab\",\"arguments\":{\"n\":1}}</tool_call>\n<tool_call>{\"name\":\"abc\"}</tool_call>",
			want: seq(hcall(0, "a", `{}`, `{"name":"a"}`), txt(" and "),
				hcall(1, "ab", `{"n":1}`, `{"name":"ab","arguments":{"n":1}}`), txt("\n"),
				hcall(2, "abc", `{}`, `{"name":"abc"}`)),
		},
		{
			name:  "whitespace around tags",
			input: "  \n<tool_call>\n\n  {\"name\" : \"a\" , \"arguments\" : { \"k\" : \"v\" } }  \n\n</tool_call>  \n",
			want:  seq(txt("  \n"), hcall(0, "a", `{"k":"v"}`, "\n\n  {\"name\" : \"a\" , \"arguments\" : { \"k\" : \"v\" } }  \n\n"), txt("  \n")),
		},
		{
			name:  "arguments as a JSON string",
			input: `<tool_call>{"name":"a","arguments":"{\"k\": 1}"}</tool_call>`,
			want:  seq(hcall(0, "a", `{"k":1}`, `{"name":"a","arguments":"{\"k\": 1}"}`)),
		},
		{
			name:  "parameters instead of arguments",
			input: `<tool_call>{"name":"a","parameters":{"k":1}}</tool_call>`,
			want:  seq(hcall(0, "a", `{"k":1}`, `{"name":"a","parameters":{"k":1}}`)),
		},
		{
			name:  "invalid JSON",
			input: `<tool_call>{"name": "a", "arguments": {"k": }}</tool_call>then`,
			want:  seq(hbad(0, `{"name": "a", "arguments": {"k": }}`, "not valid JSON"), txt("then")),
		},
		{name: "JSON array", input: `<tool_call>[{"name":"a"}]</tool_call>`, want: seq(hbad(0, `[{"name":"a"}]`, "JSON array"))},
		{name: "missing name", input: `<tool_call>{"arguments":{}}</tool_call>`, want: seq(hbad(0, `{"arguments":{}}`, `no "name"`))},
		{name: "name not a string", input: `<tool_call>{"name":7}</tool_call>`, want: seq(hbad(0, `{"name":7}`, `"name" must be a tool name in a string, got 7`))},
		{
			name:  "arguments not an object",
			input: `<tool_call>{"name":"a","arguments":[1]}</tool_call>`,
			want:  seq(hbad(0, `{"name":"a","arguments":[1]}`, `"arguments" must be a JSON object`)),
		},
		{name: "empty call", input: "<tool_call>\n</tool_call>", want: seq(hbad(0, "\n", "empty"))},
		{name: "not JSON at all", input: "<tool_call>send_mail(to='x')</tool_call>", want: seq(hbad(0, "send_mail(to='x')", "not a JSON object"))},
		{
			name:  "unterminated call",
			input: `x<tool_call>{"name":"a","arguments":{"k":"</tool_`,
			want: seq(txt("x"), bad(0, `{"name":"a","arguments":{"k":"</tool_`,
				`<tool_call>{"name":"a","arguments":{"k":"</tool_`, Unclosed)),
		},
		{
			name:  "unterminated call ending in a partial close tag",
			input: `<tool_call>{"name":"a"}</tool_c`,
			want:  seq(bad(0, `{"name":"a"}</tool_c`, `<tool_call>{"name":"a"}</tool_c`, Unclosed)),
		},
		{name: "unterminated thinking", input: "<think>still going", want: seq(ev{Kind: ThinkingOpen}, think("still going"))},
		{
			name:  "a call in unterminated thinking is reported",
			input: "<think>call it: <tool_call>{\"name\":\"a\"}</tool_call> <tool_call>",
			want:  seq(ev{Kind: ThinkingOpen}, think("call it: <tool_call>{\"name\":\"a\"}</tool_call> <tool_call>"), ev{Kind: CallInThinking, Text: "<tool_call>"}),
		},
		{name: "emoji CJK Arabic", input: "<think>🙂 思考 تفكير</think>答え 🎉 مرحبا", want: seq(thought("🙂 思考 تفكير"), txt("答え 🎉 مرحبا"))},
		{
			name:  "multibyte in arguments",
			input: `<tool_call>{"name":"a","arguments":{"t":"日本語 🙂 عربى"}}</tool_call>`,
			want:  seq(hcall(0, "a", `{"t":"日本語 🙂 عربى"}`, `{"name":"a","arguments":{"t":"日本語 🙂 عربى"}}`)),
		},
		{name: "invalid UTF-8 passes through", input: "a\xff\xfeb\xe6\x97", want: seq(txt("a\xff\xfeb\xe6\x97"))},
		{name: "closing tag inside a string in a big argument", input: `<tool_call>{"name":"big","arguments":{"s":"` + strings.ReplaceAll(strings.ReplaceAll(bigArg, `\`, `\\`), `"`, `\"`) + `"}}</tool_call>`},
	}
}
