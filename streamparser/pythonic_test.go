package streamparser

const fn = "<<function>>"

// pcall is a well-formed bare Pythonic call, written as raw.
func pcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, raw)
}

func pythonicCases() []parserCase {
	return []parserCase{
		{
			name:  "after the marker",
			input: fn + `get_weather(city="Paris", days=3)`,
			want:  seq(call(0, "get_weather", `{"city":"Paris","days":3}`, `get_weather(city="Paris", days=3)`, fn+`get_weather(city="Paris", days=3)`)),
		},
		{
			name:  "bare, on a line of its own",
			input: "Let me check.\n  get_weather(city='Paris', units=None, detailed=True, tags=['a', \"b\"], opts={'k': 1.5, \"n\": -2})\nOK",
			want: seq(txt("Let me check.\n  "),
				pcall(0, "get_weather", `{"city":"Paris","units":null,"detailed":true,"tags":["a","b"],"opts":{"k":1.5,"n":-2}}`,
					"get_weather(city='Paris', units=None, detailed=True, tags=['a', \"b\"], opts={'k': 1.5, \"n\": -2})"),
				txt("\nOK")),
		},
		{
			name:  "bare, quoted in prose, is text",
			input: "The error says: try get_weather(city='Paris') instead.",
			want:  seq(txt("The error says: try get_weather(city='Paris') instead.")),
		},
		{
			name:  "a list of calls",
			input: `[get_weather(city="Paris"), send_mail(to="x")]`,
			want: seq(call(0, "get_weather", `{"city":"Paris"}`, `get_weather(city="Paris")`, `[get_weather(city="Paris"),`),
				call(1, "send_mail", `{"to":"x"}`, ` send_mail(to="x")`, ` send_mail(to="x")]`)),
		},
		{
			name:  "a list of calls after text, with commas in values",
			input: "Sure:\n[a(x=[1, 2], y=\"a, b\"),\n  big(v=(3, 4))] done",
			want: seq(txt("Sure:\n"), call(0, "a", `{"x":[1,2],"y":"a, b"}`, `a(x=[1, 2], y="a, b")`, `[a(x=[1, 2], y="a, b"),`),
				call(1, "big", `{"v":[3,4]}`, "\n  big(v=(3, 4))", "\n  big(v=(3, 4))]"), txt(" done")),
		},
		{
			name:  "a list element that is not a call",
			input: `[a(x=1), 5]`,
			want:  seq(call(0, "a", `{"x":1}`, `a(x=1)`, `[a(x=1),`), bad(1, " 5", " 5]", "has no '('")),
		},
		{name: "a list in prose is text", input: "see [a(x=1)]", want: seq(txt("see ["), pcall(0, "a", `{"x":1}`, `a(x=1)`), txt("]"))},
		{name: "an unclosed list", input: `[a(x=1), a(`, want: seq(call(0, "a", `{"x":1}`, `a(x=1)`, `[a(x=1),`), bad(1, " a(", " a(", Unclosed))},
		{
			name:  "calls separated by semicolons and commas",
			input: "a(x=1); a(x=2) ,\n a(x=3); then a(x=4)",
			want: seq(pcall(0, "a", `{"x":1}`, `a(x=1)`), call(1, "a", `{"x":2}`, `a(x=2)`, `; a(x=2)`),
				call(2, "a", `{"x":3}`, `a(x=3)`, " ,\n a(x=3)"), txt("; then a(x=4)")),
		},
		{
			name:  "gorilla's calls, one marker each",
			input: fn + `get_weather(city='Boston')` + fn + `get_weather(city='San Francisco')`,
			want: seq(call(0, "get_weather", `{"city":"Boston"}`, `get_weather(city='Boston')`, fn+`get_weather(city='Boston')`),
				call(1, "get_weather", `{"city":"San Francisco"}`, `get_weather(city='San Francisco')`, fn+`get_weather(city='San Francisco')`)),
		},
		{
			name:  "a separator before a marker",
			input: fn + `a(x=1); ` + fn + `b()`,
			want:  seq(call(0, "a", `{"x":1}`, `a(x=1)`, fn+`a(x=1)`), call(1, "b", `{}`, `b()`, "; "+fn+`b()`)),
		},
		{name: "a separator and thinking", input: `a(); <think>x</think>`, want: seq(pcall(0, "a", `{}`, `a()`), txt("; "), thought("x"))},
		{name: "a separator ends the reply", input: "a();\n", want: seq(pcall(0, "a", `{}`, `a()`), txt(";\n"))},
		{name: "calls back to back", input: `a(x=1)a(x=2)`, want: seq(pcall(0, "a", `{"x":1}`, `a(x=1)`), pcall(1, "a", `{"x":2}`, `a(x=2)`))},
		{name: "unknown tools are text", input: "print(x) and foo(a=1)", want: seq(txt("print(x) and foo(a=1)"))},
		{name: "not at a word start", input: "my_get_weather(city=1) obj.get_weather(city=1) 2a(b=1) x-a(b=1)", want: seq(txt("my_get_weather(city=1) obj.get_weather(city=1) 2a(b=1) x-a(b=1)"))},
		{name: "a known name without a parenthesis", input: "call get_weather", want: seq(txt("call get_weather"))},
		{name: "a known name and a space", input: "get_weather (city=1)", want: seq(txt("get_weather (city=1)"))},
		{name: "a partial marker", input: "see <<func", want: seq(txt("see <<func"))},
		{name: "hermes tags are text", input: `<tool_call>{"name":"a"}</tool_call>`, want: seq(txt(`<tool_call>{"name":"a"}</tool_call>`))},
		{
			name:  "an unknown tool after the marker",
			input: fn + ` lookup(q="x")`,
			want:  seq(call(0, "lookup", `{"q":"x"}`, ` lookup(q="x")`, fn+` lookup(q="x")`)),
		},
		{
			name:  "brackets and quotes in strings",
			input: `get_weather(city="Paris (France)", note='it\'s )', q="\"(", r='"')`,
			want:  seq(pcall(0, "get_weather", `{"city":"Paris (France)","note":"it's )","q":"\"(","r":"\""}`, `get_weather(city="Paris (France)", note='it\'s )', q="\"(", r='"')`)),
		},
		{
			name:  "nested values",
			input: `a(q={"a": [1, (2, 3)], "b": {"c": None}}, e=[], t=(), d={})`,
			want:  seq(pcall(0, "a", `{"q":{"a":[1,[2,3]],"b":{"c":null}},"e":[],"t":[],"d":{}}`, `a(q={"a": [1, (2, 3)], "b": {"c": None}}, e=[], t=(), d={})`)),
		},
		{
			name:  "escapes",
			input: `send_mail(body="l1\nl2 \"q\" \u00e9 \x41 \101 \U0001F642 \\ \q \0", to='a@b.c')`,
			want:  seq(pcall(0, "send_mail", `{"body":"l1\nl2 \"q\" é A A 🙂 \\ \\q \u0000","to":"a@b.c"}`, `send_mail(body="l1\nl2 \"q\" \u00e9 \x41 \101 \U0001F642 \\ \q \0", to='a@b.c')`)),
		},
		{
			name:  "numbers",
			input: `a(i=-3, f=.5, g=5., e=1e3, h=0x1F, u=1_000, big=12345678901234567890, p=+2)`,
			want:  seq(pcall(0, "a", `{"i":-3,"f":0.5,"g":5,"e":1e3,"h":31,"u":1000,"big":12345678901234567890,"p":2}`, `a(i=-3, f=.5, g=5., e=1e3, h=0x1F, u=1_000, big=12345678901234567890, p=+2)`)),
		},
		{name: "JSON words", input: `a(b=true, c=null, d=false)`, want: seq(pcall(0, "a", `{"b":true,"c":null,"d":false}`, `a(b=true, c=null, d=false)`))},
		{name: "no arguments", input: `get_weather()`, want: seq(pcall(0, "get_weather", `{}`, `get_weather()`))},
		{
			name:  "multibyte strings",
			input: `a(t="日本語 🙂", u='عربى')`,
			want:  seq(pcall(0, "a", `{"t":"日本語 🙂","u":"عربى"}`, `a(t="日本語 🙂", u='عربى')`)),
		},
		{
			name:  "lines and a trailing comma",
			input: "a(\n  x=1,\n  y='z',\n)",
			want:  seq(pcall(0, "a", `{"x":1,"y":"z"}`, "a(\n  x=1,\n  y='z',\n)")),
		},
		{name: "positional argument", input: `get_weather("Paris")`, want: seq(bad(0, `get_weather("Paris")`, `get_weather("Paris")`, `"\"Paris\"" has no name: write every argument as name=value`))},
		{name: "positional after named", input: `a(x=1, 2)`, want: seq(bad(0, `a(x=1, 2)`, `a(x=1, 2)`, `"2" has no name`))},
		{name: "star arguments", input: `a(*xs)`, want: seq(bad(0, `a(*xs)`, `a(*xs)`, "has no name"))},
		{name: "an argument twice", input: `a(x=1, x=2)`, want: seq(bad(0, `a(x=1, x=2)`, `a(x=1, x=2)`, "x is given twice"))},
		{name: "a variable", input: `a(city=paris)`, want: seq(bad(0, `a(city=paris)`, `a(city=paris)`, `"paris" is not a Python literal: quote strings`))},
		{name: "a bad number", input: `a(n=1.2.3)`, want: seq(bad(0, `a(n=1.2.3)`, `a(n=1.2.3)`, `"1.2.3" is not a number`))},
		{name: "an escape beyond Unicode", input: `send_mail(a="\U80000000")`, want: seq(bad(0, `send_mail(a="\U80000000")`, `send_mail(a="\U80000000")`, `the escape \U80000000 is beyond Unicode`))},
		{name: "a number key", input: `a(d={1: 2})`, want: seq(bad(0, `a(d={1: 2})`, `a(d={1: 2})`, "is not a string"))},
		{name: "mismatched brackets", input: `a(x=[1)]!`, want: seq(bad(0, `a(x=[1)]`, `a(x=[1)]`, "',' or ']' is missing"), txt("!"))},
		{name: "no name after the marker", input: fn + `(x=1)`, want: seq(bad(0, `(x=1)`, fn+`(x=1)`, "no tool name before '('"))},
		{
			name:  "prose after the marker",
			input: fn + " is a marker",
			want:  seq(bad(0, " is", fn+" is", "no tool name and '(' follow <<function>>"), txt(" a marker")),
		},
		{
			name:  "a space before the parenthesis",
			input: fn + "get_weather (x=1)",
			want:  seq(bad(0, "get_weather", fn+"get_weather", "no tool name and '(' follow"), txt(" (x=1)")),
		},
		{name: "unclosed", input: `get_weather(city="Par`, want: seq(bad(0, `get_weather(city="Par`, `get_weather(city="Par`, Unclosed))},
		{name: "unclosed after a quote", input: `a(s='it\'`, want: seq(bad(0, `a(s='it\'`, `a(s='it\'`, Unclosed))},
		{
			name:  "call inside thinking is thinking",
			input: "<think>get_weather(city='x') " + fn + "a()</think>ok",
			want:  seq(thought("get_weather(city='x') "+fn+"a()"), txt("ok")),
		},
		{name: "big call", input: bigCall(Pythonic, `it\'s 🙂 (")`+bigArg[:4096])},
	}
}
