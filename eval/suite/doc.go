// Package suite reads eval suites: files of cases, each a request (or a
// whole history), the tools it offers, the settings it runs with, and
// what must happen, in the [grade.Expect] that grading applies. It also
// reads BFCL's own files into the same cases. It runs nothing.
//
// # The suite file
//
// A suite is YAML or JSON (docs/evals.md has the format, and
// eval/suite/schema.json its JSON Schema, for editors):
//
//	settings: {dialect: hermes, max_rounds: 4}   # any request setting, by its key
//	repeat: 3                                     # runs of each case
//	tools:
//	  stubs: [send_mail]                          # built-in stub tools
//	  mcp: ["toolscope mcp calculator"]           # as --mcp takes them
//	  inline: [{name: get_weather, parameters: {type: object, …}}]
//	cases:
//	  - id: mail-john
//	    request: Send an email to john@example.com about the standup
//	    expect:
//	      calls:
//	        - name: send_mail
//	          args: {to: john@example.com, subject: {regex: "(?i)standup"}, body: {any: true}}
//	      forbidden: [cancel_meeting]
//
// A case's settings go over its suite's; its repeat and tools replace
// them. Each [Case] comes out complete, so a runner reads cases alone.
//
// # Refused before anything runs
//
// [Parse] reads the whole file and reports every problem as an [*Error]
// naming the file, the line and the field: an unknown field, a value of
// the wrong type, a setting engine's table refuses or that is the
// server's, a case without expectations, an expected or forbidden tool no
// offered tool matches (a stub's or inline tool's; an MCP server's tools
// are known once it runs, so calls to them are checked then), an argument
// the tool has no parameter for, a regular expression that does not
// compile.
//
// # BFCL
//
// [ReadBFCL] reads the Berkeley Function Calling Leaderboard's question
// and possible_answer files as they are, into cases graded as BFCL's AST
// checker grades them.
package suite
