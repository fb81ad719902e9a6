package streamparser

// qcall is a well-formed Qwen3-Coder call, written between the tags.
func qcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, "<tool_call>"+raw+"</tool_call>")
}
func qbad(i int, raw, reason string) []ev {
	return bad(i, raw, "<tool_call>"+raw+"</tool_call>", reason)
}

func qwen3coderCases() []parserCase {
	weather := "\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n"
	return []parserCase{
		{
			name:  "as the template writes it",
			input: "I'll look.\n\n<tool_call>" + weather + "</tool_call>",
			want:  seq(txt("I'll look.\n\n"), qcall(0, "get_weather", `{"city":"Paris","days":3}`, weather)),
		},
		{
			name: "values typed by the schema",
			input: "<tool_call><function=get_weather><parameter=city>\n 42 \n</parameter><parameter=days> 7 </parameter>" +
				"<parameter=hourly>True</parameter><parameter=hours>[9, 12]</parameter><parameter=opts>{'k': None}</parameter>" +
				"<parameter=ratio>null</parameter><parameter=note>null</parameter><parameter=any>1</parameter><parameter=extra>2</parameter></function></tool_call>",
			want: qcall(0, "get_weather", `{"city":" 42 ","days":7,"hourly":true,"hours":[9,12],"opts":{"k":null},"ratio":null,"note":"null","any":"1","extra":"2"}`,
				"<function=get_weather><parameter=city>\n 42 \n</parameter><parameter=days> 7 </parameter>"+
					"<parameter=hourly>True</parameter><parameter=hours>[9, 12]</parameter><parameter=opts>{'k': None}</parameter>"+
					"<parameter=ratio>null</parameter><parameter=note>null</parameter><parameter=any>1</parameter><parameter=extra>2</parameter></function>"),
		},
		{
			name:  "a typed value that is not one stays a string",
			input: "<tool_call><function=get_weather><parameter=days>three</parameter></function></tool_call>",
			want:  qcall(0, "get_weather", `{"days":"three"}`, "<function=get_weather><parameter=days>three</parameter></function>"),
		},
		{
			name:  "an unknown tool's values are strings",
			input: "<tool_call><function=lookup><parameter=n>5</parameter></function></tool_call>",
			want:  qcall(0, "lookup", `{"n":"5"}`, "<function=lookup><parameter=n>5</parameter></function>"),
		},
		{
			name:  "one newline trimmed on each side, quotes and tags kept",
			input: "<tool_call>\n<function=send_mail>\n<parameter=body>\n\nHi \"John\",\n<b>{x}</b> \\ 🙂\n\n</parameter>\n</function>\n</tool_call>",
			want: qcall(0, "send_mail", `{"body":"\nHi \"John\",\n<b>{x}</b> \\ 🙂\n"}`,
				"\n<function=send_mail>\n<parameter=body>\n\nHi \"John\",\n<b>{x}</b> \\ 🙂\n\n</parameter>\n</function>\n"),
		},
		{
			name:  "missing closing tags, as vLLM reads them",
			input: "<tool_call>\n<function=a>\n<parameter=x>\n1\n<parameter=list>\n[2]\n</tool_call>",
			want:  qcall(0, "a", `{"x":1,"list":[2]}`, "\n<function=a>\n<parameter=x>\n1\n<parameter=list>\n[2]\n"),
		},
		{name: "no parameters", input: "<tool_call>\n<function=a>\n</function>\n</tool_call>", want: qcall(0, "a", `{}`, "\n<function=a>\n</function>\n")},
		{
			name:  "two calls",
			input: "<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=big>\n<parameter=v>\nx\n</parameter>\n</function>\n</tool_call>",
			want: seq(qcall(0, "a", `{}`, "\n<function=a>\n</function>\n"), txt("\n"),
				qcall(1, "big", `{"v":"x"}`, "\n<function=big>\n<parameter=v>\nx\n</parameter>\n</function>\n")),
		},
		{name: "a Hermes call", input: `<tool_call>{"name": "a"}</tool_call>`, want: qbad(0, `{"name": "a"}`, "does not begin with <function=")},
		{name: "no name", input: "<tool_call><function=>x</function></tool_call>", want: qbad(0, "<function=>x</function>", "not followed by a tool name")},
		{name: "text between parameters", input: "<tool_call><function=a>so <parameter=x>1</parameter></function></tool_call>", want: qbad(0, "<function=a>so <parameter=x>1</parameter></function>", `"so <parameter=x>1</parameter></function>" stands outside`)},
		{name: "text after the function", input: "<tool_call><function=a></function>ok</tool_call>", want: qbad(0, "<function=a></function>ok", `"ok" follows </function>`)},
		{name: "a parameter twice", input: "<tool_call><function=a><parameter=x>1</parameter><parameter=x>2</parameter></function></tool_call>", want: qbad(0, "<function=a><parameter=x>1</parameter><parameter=x>2</parameter></function>", "x is given twice")},
		{name: "a parameter without a name", input: "<tool_call><function=a><parameter=\nx>1</parameter></function></tool_call>", want: qbad(0, "<function=a><parameter=\nx>1</parameter></function>", "not followed by a parameter name")},
		{name: "unclosed", input: "<tool_call>\n<function=a>\n<parameter=x>\n1", want: bad(0, "\n<function=a>\n<parameter=x>\n1", "<tool_call>\n<function=a>\n<parameter=x>\n1", Unclosed)},
		{name: "the first closing tag ends the call", input: "<tool_call><function=big><parameter=v>a</tool_call>b</parameter></function></tool_call>", want: seq(qcall(0, "big", `{"v":"a"}`, "<function=big><parameter=v>a"), txt("b</parameter></function></tool_call>"))},
		{name: "bytes that are not UTF-8", input: "<tool_call><function=big><parameter=v>\xff</parameter></function></tool_call>", want: qcall(0, "big", "{\"v\":\"\uFFFD\"}", "<function=big><parameter=v>\xff</parameter></function>")},
		{name: "inside thinking", input: "<think><tool_call>" + weather + "</tool_call></think>", want: thought("<tool_call>" + weather + "</tool_call>")},
		{name: "big call", input: bigCall(Qwen3Coder, bigArg[:4096])},
	}
}
