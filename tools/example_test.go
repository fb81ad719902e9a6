package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/toolscope/toolscope/tools"
)

func ExampleFunc() {
	type args struct {
		Text  string `json:"text"`
		Times int    `json:"times"`
	}
	type result struct {
		Echo string `json:"echo"`
	}
	echo := tools.Func("echo", `Repeat a text. Example: echo(text="hi", times=2)`,
		json.RawMessage(`{
		  "type": "object",
		  "properties": {
		    "text": {"type": "string", "description": "What to repeat"},
		    "times": {"type": "integer", "minimum": 1, "description": "How many times"}
		  },
		  "required": ["text", "times"],
		  "additionalProperties": false
		}`),
		func(ctx context.Context, in args) (result, error) {
			return result{Echo: strings.Repeat(in.Text, in.Times)}, nil
		})

	out, err := echo.Call(context.Background(), json.RawMessage(`{"text": "ha", "times": 3}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)
	// Output: {"echo":"hahaha"}
}

func ExampleRegistry_Check() {
	r, err := tools.NewRegistry(tools.Stubs(0)...)
	if err != nil {
		log.Fatal(err)
	}
	// Arguments as a small model might write them.
	args := json.RawMessage(`{"to": "john", "subject": "Standup", "cc": "ann@example.com"}`)
	for _, problem := range strings.Split(r.Check("send_mail", args).Error(), "; ") {
		fmt.Println(problem)
	}
	fmt.Println(r.Check("send_email", args))
	// Output:
	// missing required argument "body"
	// unexpected argument "cc" (send_mail takes: to, subject, body)
	// argument "to" must be a valid email, got "john" (missing @)
	// unknown tool "send_email"; available tools: send_mail, schedule_meeting, cancel_meeting
}
