package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// decodeStrict reads exactly one JSON object with only known fields,
// named exactly: encoding/json would take "Message" for "message". Its
// errors call the object what, and show example for an empty body; a
// value of the wrong type is named by its JSON path and the JSON type
// it needs, never by Go's names.
func decodeStrict(body []byte, v any, what, example string) error {
	if err := exactKeys(body, v); err != nil {
		return fmt.Errorf("the body is not a valid %s: %w", what, err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the body is empty: send a JSON object such as %s", example)
		}
		return fmt.Errorf("the body is not a valid %s: %s", what, decodeProblem(reflect.TypeOf(v), err))
	}
	if dec.More() {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

// exactKeys refuses a JSON object key that names a field of v only when
// case is ignored. Anything else is left for the decoder to judge.
func exactKeys(body []byte, v any) error {
	var keys map[string]json.RawMessage
	if json.Unmarshal(body, &keys) != nil {
		return nil
	}
	fields := reflect.VisibleFields(reflect.TypeOf(v).Elem())
	for key := range keys {
		for _, f := range fields {
			if name := jsonName(f); !f.Anonymous && name != key && strings.EqualFold(name, key) {
				return fmt.Errorf("field %q is spelled %q", key, name)
			}
		}
	}
	return nil
}

// decodeProblem words a decoder's error about a value of type root.
func decodeProblem(root reflect.Type, err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return typeProblem(root, te)
	case errors.As(err, &se):
		return fmt.Sprintf("it is not JSON: %v, at byte %d", se, se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "its JSON ends before it is complete"
	}
	return err.Error()
}

// typeProblem words a JSON value of the wrong type, e.g. `"round" must be
// a whole number, not a string`.
func typeProblem(root reflect.Type, e *json.UnmarshalTypeError) string {
	path, field := jsonPath(root, e.Field)
	want, got := jsonKind(e.Type), strings.TrimPrefix(e.Value, "number ")
	if got == e.Value {
		got = map[string]string{"string": "a string", "number": "a number", "object": "an object", "array": "a list", "bool": "a boolean"}[e.Value]
	}
	if got == "" {
		got = e.Value
	}
	integer := strings.HasPrefix(want, "a whole number") && !strings.ContainsAny(got, ".eE") && strings.HasPrefix(e.Value, "number ")
	switch {
	case path == "":
		return fmt.Sprintf("it must be a JSON object, not %s", got)
	case integer:
		return fmt.Sprintf("%q %s is out of range", path, got)
	case field != nil && field != deref(e.Type) && (field.Kind() == reflect.Slice || field.Kind() == reflect.Array):
		return fmt.Sprintf("each item of %q must be %s, not %s", path, want, got)
	}
	return fmt.Sprintf("%q must be %s, not %s", path, want, got)
}

// jsonPath turns a decoder's field path into the request's own, without
// the Go names of embedded structs, and returns the type of the field it
// names (nil when unknown).
func jsonPath(root reflect.Type, field string) (string, reflect.Type) {
	if field == "" {
		return "", nil
	}
	var names []string
	t := root
	for seg := range strings.SplitSeq(field, ".") {
		t = elem(t)
		f, ok := fieldOf(t, seg)
		if !ok {
			names, t = append(names, seg), nil
			continue
		}
		if t = f.Type; !f.Anonymous {
			names = append(names, seg)
		}
	}
	return strings.Join(names, "."), deref(t)
}

// fieldOf finds the field of struct t that JSON, or the decoder's path
// for an embedded struct, calls name.
func fieldOf(t reflect.Type, name string) (reflect.StructField, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous && f.Name == name || !f.Anonymous && jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonName is the key JSON gives field f.
func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
		return name
	}
	return f.Name
}

// elem is what a path goes on into from t: a struct through its
// pointers, lists and maps.
func elem(t reflect.Type) reflect.Type {
	for t != nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonKind names the JSON values a Go type takes.
func jsonKind(t reflect.Type) string {
	switch deref(t).Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another JSON value"
}
