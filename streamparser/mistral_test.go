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
		{name: "prose after the marker", input: tc + " hello world", want: seq(bad(0, "hello", tc+" hello", "neither a JSON array nor a tool name, [ARGS]"), txt(" world"))},
		{name: "an object for an array", input: tc + `{"name":"a"}`, want: seq(bad(0, "", tc, "neither a JSON array"), txt(`{"name":"a"}`))},
		{
			name:  "the newer form",
			input: "Sure." + tc + `get_weather[ARGS]{"city": "Paris", "l": [1, {"a": "}"}]}` + tc + "get_time[ARGS]{}\ndone",
			want: seq(txt("Sure."), call(0, "get_weather", `{"city":"Paris","l":[1,{"a":"}"}]}`, `get_weather[ARGS]{"city": "Paris", "l": [1, {"a": "}"}]}`, tc+`get_weather[ARGS]{"city": "Paris", "l": [1, {"a": "}"}]}`),
				call(1, "get_time", `{}`, `get_time[ARGS]{}`, tc+`get_time[ARGS]{}`), txt("\ndone")),
		},
		{name: "the newer form after a space", input: tc + " a[ARGS]{\"x\": 1}", want: call(0, "a", `{"x":1}`, `a[ARGS]{"x": 1}`, tc+` a[ARGS]{"x": 1}`)},
		{name: "the newer form, arguments as a string", input: tc + `a[ARGS]"{\"x\": 1}"`, want: seq(bad(0, "a[ARGS]", tc+"a[ARGS]", "neither"), txt(`"{\"x\": 1}"`))},
		{name: "the newer form, bad JSON", input: tc + `a[ARGS]{"x": }`, want: bad(0, `a[ARGS]{"x": }`, tc+`a[ARGS]{"x": }`, "the arguments of a are not valid JSON")},
		{name: "the newer form, a broken tag", input: tc + `a[ARG]{}`, want: seq(bad(0, "a[ARG", tc+"a[ARG", "neither"), txt("]{}"))},
		{name: "the newer form, a space before the tag", input: tc + `a [ARGS]{}`, want: seq(bad(0, "a", tc+"a", "neither"), txt(" [ARGS]{}"))},
		{name: "the newer form, unclosed", input: tc + `a[ARGS]{"x": "`, want: bad(0, `a[ARGS]{"x": "`, tc+`a[ARGS]{"x": "`, Unclosed)},
		{name: "the newer form inside thinking", input: "<think>" + tc + "a[ARGS]{}</think>", want: thought(tc + "a[ARGS]{}")},
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
