package suite_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolscope/toolscope/eval/grade"
	"github.com/toolscope/toolscope/eval/suite"
)

func ExampleParse() {
	s, err := suite.Parse("mail.yaml", []byte(`
settings: {dialect: hermes}
tools:
  stubs: [send_mail]
cases:
  - id: mail-john
    request: Send an email to john@example.com about the standup
    repeat: 3
    expect:
      calls:
        - name: send_mail
          args: {to: john@example.com, subject: {regex: "(?i)standup"}, body: {any: true}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := s.Cases[0]
	fmt.Println(c.ID, "runs", c.Repeat, "times with", string(c.Settings["dialect"]))

	// What a run did, as the runner reads it from the run's events.
	run := grade.Run{Finish: grade.FinishAnswered, Tools: c.Tools.Schemas(), Calls: []grade.Call{{Name: "send_mail",
		Arguments: json.RawMessage(`{"to": "john@example.com", "subject": "Lunch", "body": "Hi John"}`)}}}
	fmt.Printf("%+v\n", grade.Grade(c.Expect, run))
	// Output:
	// mail-john runs 3 times with "hermes"
	// {Pass:false Category:wrong_value Message:call 1 send_mail: argument "subject" is "Lunch"; the case wants a match of "(?i)standup"}
}

func ExampleParse_refused() {
	_, err := suite.Parse("mail.yaml", []byte(`
tools:
  stubs: [send_mail]
cases:
  - id: mail-john
    request: Send an email to john@example.com
    expect:
      calls:
        - name: send_email
`))
	fmt.Println(err)
	// Output:
	// mail.yaml:9: cases[0].expect.calls[0].name: no tool offered is named "send_email": it offers send_mail
}
