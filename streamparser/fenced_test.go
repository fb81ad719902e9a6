package streamparser

const fence = "```json"

// fcall is a well-formed Fenced call whose Raw is raw.
func fcall(i int, name, args, raw string) []ev {
	return call(i, name, args, raw, fence+raw+"```")
}

func fencedCases() []parserCase {
	weather := "\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
	return []parserCase{
		{
			name:  "text, block, text",
			input: "Here:\n" + fence + weather + "```\nDone",
			want:  seq(txt("Here:\n"), fcall(0, "get_weather", `{"city":"Paris"}`, weather), txt("\nDone")),
		},
		{
			name:  "a fence inside a string",
			input: fence + "\n{\"name\": \"note\", \"arguments\": {\"md\": \"```py\\nx\\n```\"}}\n```",
			want:  fcall(0, "note", `{"md":"`+"```py\\nx\\n```"+`"}`, "\n{\"name\": \"note\", \"arguments\": {\"md\": \"```py\\nx\\n```\"}}\n"),
		},
		{name: "other fences are text", input: "```python\nprint(1)\n```\n``` ``", want: seq(txt("```python\nprint(1)\n```\n``` ``"))},
		{name: "a block that is not a call", input: fence + "\n[1, 2]\n```", want: bad(0, "\n[1, 2]\n", fence+"\n[1, 2]\n```", "JSON array")},
		{name: "unclosed", input: fence + "\n{\"name\": \"a\"}\n``", want: bad(0, "\n{\"name\": \"a\"}\n``", fence+"\n{\"name\": \"a\"}\n``", Unclosed)},
		{name: "a block inside thinking is thinking", input: "<think>" + fence + "\n{}\n```</think>", want: thought(fence + "\n{}\n```")},
		{
			name:  "two blocks",
			input: fence + "{\"name\":\"a\"}```" + fence + "{\"name\":\"b\"}```",
			want:  seq(fcall(0, "a", `{}`, `{"name":"a"}`), fcall(1, "b", `{}`, `{"name":"b"}`)),
		},
	}
}
