package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type greetArgs struct {
	Name  string   `json:"name"`
	Langs []string `json:"langs"`
}

const greetSchema = `{"type": "object", "properties": {"name": {"type": "string"}, "langs": {"type": "array", "items": {"type": "string"}}}}`

func TestFuncDescribesItself(t *testing.T) {
	tool := Func("greet", "Greet someone.", json.RawMessage(greetSchema),
		func(context.Context, greetArgs) (string, error) { return "", nil })
	if tool.Name() != "greet" || tool.Description() != "Greet someone." || string(tool.Parameters()) != greetSchema {
		t.Errorf("Func tool = %q, %q, %s", tool.Name(), tool.Description(), tool.Parameters())
	}
}

func TestFuncDecodesArguments(t *testing.T) {
	var got greetArgs
	tool := Func("greet", "", json.RawMessage(greetSchema), func(_ context.Context, in greetArgs) (string, error) {
		got = in
		return "", nil
	})
	if _, err := tool.Call(t.Context(), json.RawMessage(`{"name": "Ada", "langs": ["en", "fr"]}`)); err != nil {
		t.Fatal(err)
	}
	if got.Name != "Ada" || strings.Join(got.Langs, ",") != "en,fr" {
		t.Errorf("fn got %+v", got)
	}

	got = greetArgs{Name: "stale"}
	if _, err := tool.Call(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got.Name != "" || got.Langs != nil {
		t.Errorf("with no arguments, fn got %+v, want the zero value", got)
	}
}

func TestFuncPassesContext(t *testing.T) {
	type key struct{}
	tool := Func("ctx", "", json.RawMessage(emptySchema), func(ctx context.Context, _ struct{}) (string, error) {
		v, _ := ctx.Value(key{}).(string)
		return v, nil
	})
	got, err := tool.Call(context.WithValue(t.Context(), key{}, "seen"), json.RawMessage(`{}`))
	if err != nil || got != "seen" {
		t.Errorf("Call = %q, %v; want the context's value", got, err)
	}
}

func TestFuncResults(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{"string as is", Func("s", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (string, error) {
			return `not "JSON"`, nil
		}), `not "JSON"`},
		{"struct as JSON", Func("j", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (greetArgs, error) {
			return greetArgs{Name: "Ada", Langs: []string{"en"}}, nil
		}), `{"name":"Ada","langs":["en"]}`},
		{"number as JSON", Func("n", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (int, error) {
			return 42, nil
		}), `42`},
		{"raw JSON compacted", Func("r", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (json.RawMessage, error) {
			return json.RawMessage(`{ "ok": true }`), nil
		}), `{"ok":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tool.Call(t.Context(), json.RawMessage(`{}`))
			if err != nil || got != tt.want {
				t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestFuncErrors(t *testing.T) {
	errFull := errors.New("mailbox full")
	failing := Func("fail", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (greetArgs, error) {
		return greetArgs{Name: "ignored"}, errFull
	})
	got, err := failing.Call(t.Context(), json.RawMessage(`{}`))
	if err != errFull || got != "" {
		t.Errorf("Call = %q, %v; want \"\" and fn's own error", got, err)
	}

	called := false
	mismatched := Func("greet", "", json.RawMessage(greetSchema), func(context.Context, greetArgs) (string, error) {
		called = true
		return "", nil
	})
	_, err = mismatched.Call(t.Context(), json.RawMessage(`{"name": 7}`))
	if err == nil || !strings.HasPrefix(err.Error(), "greet: arguments do not fit the tool's Go type tools.greetArgs") {
		t.Errorf("Call with undecodable arguments error = %v", err)
	}
	if called {
		t.Error("fn was called with arguments that did not decode")
	}

	unencodable := Func("chan", "", json.RawMessage(emptySchema), func(context.Context, struct{}) (chan int, error) {
		return make(chan int), nil
	})
	if _, err := unencodable.Call(t.Context(), nil); err == nil || !strings.HasPrefix(err.Error(), "chan: cannot encode the result as JSON") {
		t.Errorf("Call with an unencodable result error = %v", err)
	}
}
