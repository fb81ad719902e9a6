package streamparser

const pyTag = "<|python_tag|>"

// lcall is a well-formed bare Llama 3 call.
func lcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, raw)
}

func llama3Cases() []parserCase {
	weather := `{"name": "get_weather", "parameters": {"city": "Paris"}}`
	weatherArgs := `{"city":"Paris"}`
	return []parserCase{
		{name: "a bare object", input: weather, want: lcall(0, "get_weather", weatherArgs, weather)},
		{
			name:  "spaces, the object, text",
			input: "\n\n" + weather + "\nDone",
			want:  seq(txt("\n\n"), lcall(0, "get_weather", weatherArgs, weather), txt("\nDone")),
		},
		{
			name:  "after thinking",
			input: "<think>plan {x}</think>\n\n" + weather,
			want:  seq(thought("plan {x}"), txt("\n\n"), lcall(0, "get_weather", weatherArgs, weather)),
		},
		{
			name:  "prompt opened thinking",
			opts:  Options{InThinking: true},
			input: "plan</think>" + weather,
			want:  seq(think("plan"), ev{Kind: ThinkingClose}, lcall(0, "get_weather", weatherArgs, weather)),
		},
		{
			name:  "calls separated by semicolons",
			input: weather + "; " + `{"name": "a"}`,
			want:  seq(lcall(0, "get_weather", weatherArgs, weather), call(1, "a", `{}`, `{"name": "a"}`, `; {"name": "a"}`)),
		},
		{
			name:  "python tag after text, then a bare object",
			input: "Look." + pyTag + weather + "; " + `{"name": "a"}`,
			want:  seq(txt("Look."), call(0, "get_weather", weatherArgs, weather, pyTag+weather), call(1, "a", `{}`, `{"name": "a"}`, `; {"name": "a"}`)),
		},
		{
			name:  "spaces alone between calls are text",
			input: weather + "\n" + `{"name": "a"}` + " ;x",
			want:  seq(lcall(0, "get_weather", weatherArgs, weather), txt("\n"), lcall(1, "a", `{}`, `{"name": "a"}`), txt(" ;x")),
		},
		{name: "an object after text is text", input: "Sure: " + weather, want: seq(txt("Sure: " + weather))},
		{
			name:  "an object after a call and text is text",
			input: weather + " and " + weather,
			want:  seq(lcall(0, "get_weather", weatherArgs, weather), txt(" and "+weather)),
		},
		{name: "an array is text", input: `[{"name":"a"}]`, want: seq(txt(`[{"name":"a"}]`))},
		{
			name:  "python tag",
			input: pyTag + weather + "<|eom_id|>",
			want:  seq(call(0, "get_weather", weatherArgs, weather, pyTag+weather), txt("<|eom_id|>")),
		},
		{
			name:  "python tag after text",
			input: "Let me look." + pyTag + " " + weather,
			want:  seq(txt("Let me look."), call(0, "get_weather", weatherArgs, " "+weather, pyTag+" "+weather)),
		},
		{
			name:  "python tag then code",
			input: pyTag + "print(1)",
			want:  seq(bad(0, "", pyTag, "no JSON object follows <|python_tag|>"), txt("print(1)")),
		},
		{name: "a partial python tag", input: "<|python", want: seq(txt("<|python"))},
		{
			name:  "braces in strings",
			input: `{"name":"a","parameters":{"s":"}{\"}"}}x`,
			want:  seq(lcall(0, "a", `{"s":"}{\"}"}`, `{"name":"a","parameters":{"s":"}{\"}"}}`), txt("x")),
		},
		{name: "arguments for parameters", input: `{"name":"a","arguments":{"k":1}}`, want: lcall(0, "a", `{"k":1}`, `{"name":"a","arguments":{"k":1}}`)},
		{name: "an object that is not a call", input: `{"answer": 42}`, want: bad(0, `{"answer": 42}`, `{"answer": 42}`, `no "name"`)},
		{name: "a brace that never closes", input: " {not json", want: seq(txt(" "), bad(0, "{not json", "{not json", Unclosed))},
		{name: "an object inside thinking", input: `<think>{"name":"a"}</think>`, want: thought(`{"name":"a"}`)},
		{name: "a multibyte name", input: `{"name": "天気"}`, want: lcall(0, "天気", `{}`, `{"name": "天気"}`)},
	}
}
