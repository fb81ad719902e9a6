package streamparser

const mk = ">>>CALL_FUNCTION<<<"

// mcall is a well-formed Marker call whose Raw is raw.
func mcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, mk+raw)
}

func markerCases() []parserCase {
	weather := ` {"name": "get_weather", "arguments": {"city": "Paris"}}`
	return []parserCase{
		{
			name:  "text, call, text",
			input: "Sure." + mk + weather + " Done.",
			want:  seq(txt("Sure."), mcall(0, "get_weather", `{"city":"Paris"}`, weather), txt(" Done.")),
		},
		{
			name:  "braces and quotes in strings",
			input: mk + `{"name":"note","arguments":{"t":"}{ \"}\" ]"}}tail`,
			want:  seq(mcall(0, "note", `{"t":"}{ \"}\" ]"}`, `{"name":"note","arguments":{"t":"}{ \"}\" ]"}}`), txt("tail")),
		},
		{
			name:  "newline after the marker",
			input: mk + "\n{\"name\":\"a\"}\n",
			want:  seq(mcall(0, "a", `{}`, "\n{\"name\":\"a\"}"), txt("\n")),
		},
		{
			name:  "two calls",
			input: mk + `{"name":"a"}` + "\n" + mk + `{"name":"b","arguments":{"n":[1,{"m":2}]}}`,
			want:  seq(mcall(0, "a", `{}`, `{"name":"a"}`), txt("\n"), mcall(1, "b", `{"n":[1,{"m":2}]}`, `{"name":"b","arguments":{"n":[1,{"m":2}]}}`)),
		},
		{
			name:  "marker then prose",
			input: mk + " hello",
			want:  seq(bad(0, " ", mk+" ", "no JSON object follows >>>CALL_FUNCTION<<<"), txt("hello")),
		},
		{
			name:  "marker then an array",
			input: mk + `[{"name":"a"}]`,
			want:  seq(bad(0, "", mk, "no JSON object follows"), txt(`[{"name":"a"}]`)),
		},
		{
			name:  "marker twice",
			input: mk + mk + `{"name":"a"}`,
			want:  seq(bad(0, "", mk, "no JSON object follows"), mcall(1, "a", `{}`, `{"name":"a"}`)),
		},
		{name: "a longer arrow", input: ">" + mk + `{"name":"a"}`, want: seq(txt(">"), mcall(0, "a", `{}`, `{"name":"a"}`))},
		{name: "partial marker", input: ">>>CALL and >>> more", want: seq(txt(">>>CALL and >>> more"))},
		{name: "marker prefix at the end", input: "see >>>CALL_FUNC", want: seq(txt("see >>>CALL_FUNC"))},
		{name: "hermes tags are text", input: `<tool_call>{"name":"a"}</tool_call>`, want: seq(txt(`<tool_call>{"name":"a"}</tool_call>`))},
		{
			name:  "unclosed object",
			input: mk + `{"name":"a","arguments":{"k":"}`,
			want:  seq(bad(0, `{"name":"a","arguments":{"k":"}`, mk+`{"name":"a","arguments":{"k":"}`, Unclosed)),
		},
		{name: "marker at the end", input: mk + "  ", want: seq(bad(0, "  ", mk+"  ", Unclosed))},
		{
			name:  "invalid JSON",
			input: mk + `{"name": }x`,
			want:  seq(bad(0, `{"name": }`, mk+`{"name": }`, "not valid JSON"), txt("x")),
		},
		{
			name:  "call inside thinking is thinking",
			input: "<think>" + mk + `{"name":"a"}</think>ok`,
			want:  seq(thought(mk+`{"name":"a"}`), txt("ok")),
		},
		{
			name:  "prompt opened thinking",
			opts:  Options{InThinking: true},
			input: "plan</think>\n" + mk + `{"name":"a","arguments":{"t":"日本 🙂"}}`,
			want:  seq(think("plan"), ev{Kind: ThinkingClose}, txt("\n"), mcall(0, "a", `{"t":"日本 🙂"}`, `{"name":"a","arguments":{"t":"日本 🙂"}}`)),
		},
	}
}
