package grade_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolscope/toolscope/eval/grade"
)

func ExampleGrade() {
	want := grade.Expect{Calls: []grade.ExpectedCall{{
		Name: "send_mail",
		Args: map[string]grade.Value{
			"to":      grade.Exactly("john@example.com"),
			"subject": {Any: true},
		},
	}}}
	schemas := map[string]json.RawMessage{"send_mail": json.RawMessage(`{"type": "object",
		"properties": {"to": {"type": "string"}, "subject": {"type": "string"}}, "required": ["to", "subject"]}`)}

	for _, args := range []string{
		`{"to": "john@example.com", "subject": "Standup"}`,
		`{"to": "jon@example.com", "subject": "Standup"}`,
		`{"to": "john@example.com"}`,
	} {
		run := grade.Run{
			Calls:  []grade.Call{{Name: "send_mail", Arguments: json.RawMessage(args)}},
			Answer: "Sent.", Finish: grade.FinishAnswered, Tools: schemas,
		}
		if r := grade.Grade(want, run); r.Pass {
			fmt.Println("pass")
		} else {
			fmt.Printf("%s: %s\n", r.Category, r.Message)
		}
	}
	// Output:
	// pass
	// wrong_value: call 1 send_mail: argument "to" is "jon@example.com"; the case wants "john@example.com"
	// missing_argument: call 1 send_mail: the required argument "subject" is missing
}

func ExampleWilson() {
	passed, total := 9, 10
	low, high := grade.Wilson(passed, total)
	fmt.Printf("%d of %d: %.0f%%, 95%% interval [%.0f%%, %.0f%%]\n", passed, total, 100*float64(passed)/float64(total), 100*low, 100*high)
	// Output: 9 of 10: 90%, 95% interval [60%, 98%]
}
