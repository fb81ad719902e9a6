package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Func makes a Tool from a function that takes decoded arguments, so that a
// tool author writes a plain Go function:
//
//	type weatherArgs struct {
//		City string `json:"city"`
//	}
//	weather := tools.Func("get_weather", "Current weather in a city.", schema,
//		func(ctx context.Context, in weatherArgs) (string, error) { … })
//
// The arguments are decoded into In with encoding/json; schema must describe
// the same shape. The result is marshalled to JSON for the model, unless it
// is a string, which is passed as is. An error from fn is returned as is.
func Func[In, Out any](name, description string, schema json.RawMessage, fn func(ctx context.Context, in In) (Out, error)) Tool {
	return &funcTool[In, Out]{name: name, description: description, schema: schema, fn: fn}
}

type funcTool[In, Out any] struct {
	name        string
	description string
	schema      json.RawMessage
	fn          func(context.Context, In) (Out, error)
}

func (t *funcTool[In, Out]) Name() string                { return t.name }
func (t *funcTool[In, Out]) Description() string         { return t.description }
func (t *funcTool[In, Out]) Parameters() json.RawMessage { return t.schema }

func (t *funcTool[In, Out]) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var in In
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &in); err != nil {
			// Arguments that passed the schema check decode unless the schema
			// and In disagree: a bug in the tool, not in the call.
			return "", fmt.Errorf("%s: arguments do not fit the tool's Go type %T; make its schema and type agree: %w", t.name, in, err)
		}
	}
	out, err := t.fn(ctx, in)
	if err != nil {
		return "", err
	}
	if s, ok := any(out).(string); ok {
		return s, nil
	}
	text, err := JSON(out)
	if err != nil {
		return "", fmt.Errorf("%s: cannot encode the result as JSON: %w", t.name, err)
	}
	return text, nil
}
