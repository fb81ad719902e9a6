package streamparser

const tc = "[TOOL_CALLS]"

func mistralCases() []parserCase {
	a, b := `{"name": "a", "arguments": {"x": 1}}`, ` {"name": "b", "arguments": {}}`
	tricky := `{"name":"a","arguments":{"s":"],[,\"","l":[1,2],"o":{"p":3,"q":4}}}`
	return []parserCase{
		{
			name:  "two calls",
			input: "Sure. " + tc + " [" + a + "," + b + "] done",
			want: seq(txt("Sure. "), call(0, "a", `{"x":1}`, a, tc+" ["+a+","),
				call(1, "b", `{}`, b, b+"]"), txt(" done")),
		},
		{
			name:  "separators in strings and nested values",
			input: tc + "[" + tricky + "]",
			want:  call(0, "a", `{"s":"],[,\"","l":[1,2],"o":{"p":3,"q":4}}`, tricky, tc+"["+tricky+"]"),
		},
		{
			name:  "spaces around elements",
			input: tc + "\n[\n  {\"name\":\"a\"} ,\n  {\"name\":\"b\"}\n]",
			want: seq(call(0, "a", `{}`, "\n  {\"name\":\"a\"} ", tc+"\n[\n  {\"name\":\"a\"} ,"),
				call(1, "b", `{}`, "\n  {\"name\":\"b\"}\n", "\n  {\"name\":\"b\"}\n]")),
		},
		{
			name:  "two markers",
			input: tc + `[{"name":"a"}]` + "\n" + tc + `[{"name":"b"}]`,
			want:  seq(call(0, "a", `{}`, `{"name":"a"}`, tc+`[{"name":"a"}]`), txt("\n"), call(1, "b", `{}`, `{"name":"b"}`, tc+`[{"name":"b"}]`)),
		},
		{name: "empty array", input: tc + "[]", want: bad(0, "", tc+"[]", "empty")},
		{
			name:  "trailing comma",
			input: tc + `[{"name":"a"},]`,
			want:  seq(call(0, "a", `{}`, `{"name":"a"}`, tc+`[{"name":"a"},`), bad(1, "", "]", "empty")),
		},
		{
			name:  "an element that is not an object",
			input: tc + `["a", {"name":"b"}]`,
			want:  seq(bad(0, `"a"`, tc+`["a",`, "not a JSON object"), call(1, "b", `{}`, ` {"name":"b"}`, ` {"name":"b"}]`)),
		},
		{name: "not an array", input: tc + " hello", want: seq(bad(0, "", tc+" ", "no JSON array follows [TOOL_CALLS]"), txt("hello"))},
		{name: "an object for an array", input: tc + `{"name":"a"}`, want: seq(bad(0, "", tc, "no JSON array follows"), txt(`{"name":"a"}`))},
		{
			name:  "unclosed array",
			input: tc + `[{"name":"a"}, {"name":`,
			want:  seq(call(0, "a", `{}`, `{"name":"a"}`, tc+`[{"name":"a"},`), bad(1, ` {"name":`, ` {"name":`, Unclosed)),
		},
		{name: "partial markers and arrays are text", input: "[TOOL and [1, 2] then [TOOL_CALL", want: seq(txt("[TOOL and [1, 2] then [TOOL_CALL"))},
		{name: "calls inside thinking are thinking", input: "<think>" + tc + `[{"name":"a"}]</think>`, want: thought(tc + `[{"name":"a"}]`)},
		{name: "a brace closes the array", input: tc + `[{"name":"a"}}x`},
	}
}
