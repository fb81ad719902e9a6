package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listed returns a tool as the SDK hands it over, its schema decoded from
// schema.
func listed(t *testing.T, name, schema string) *sdk.Tool {
	t.Helper()
	var decoded any
	if err := json.Unmarshal([]byte(schema), &decoded); err != nil {
		t.Fatal(err)
	}
	return &sdk.Tool{Name: name, InputSchema: decoded}
}

// tapList passes a tools/list request with id, and response, through tap.
func tapList(t *testing.T, tap *wiretap, id, response string) {
	t.Helper()
	tapMessage(t, tap, sent, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{}}`)
	tapMessage(t, tap, received, response)
}

func tapMessage(t *testing.T, tap *wiretap, direction, raw string) {
	t.Helper()
	msgs, err := parseMessages([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	tap.record(direction, msgs)
}

func TestObjectTypeIsSplicedIn(t *testing.T) {
	for schema, want := range map[string]string{
		`{"properties":{"b":{},"a":{}}}`:      `{"type":"object","properties":{"b":{},"a":{}}}`,
		"{\n  \"properties\": {\"b\": {}}\n}": "{\"type\":\"object\",\n  \"properties\": {\"b\": {}}\n}",
		`{}`:                                  `{"type":"object"}`,
		` { } `:                               `{"type":"object" }`,
		`{"type":"object","properties":{}}`:   `{"type":"object","properties":{}}`,
	} {
		got, ok := withObjectType(json.RawMessage(schema))
		if !ok || string(got) != want {
			t.Errorf("withObjectType(%s) = %s, %v; want %s", schema, got, ok, want)
		}
	}
	for _, schema := range []string{`null`, `[]`, `"object"`} {
		if got, ok := withObjectType(json.RawMessage(schema)); ok {
			t.Errorf("withObjectType(%s) = %s, want a failure", schema, got)
		}
	}
}

// A tools/list response the tap missed must not leave the tool with the
// schema an earlier response gave it.
func TestAStaleSchemaIsNotUsed(t *testing.T) {
	var tap wiretap
	tapList(t, &tap, "1", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"f","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}}]}}`)
	if got, want := string(tap.schemas.parameters(listed(t, "f", `{"type":"object","properties":{"b":{},"a":{}}}`))), `{"type":"object","properties":{"b":{},"a":{}}}`; got != want {
		t.Errorf("parameters = %s, want %s", got, want)
	}
	if got, want := string(tap.schemas.parameters(listed(t, "f", `{"type":"object","properties":{"d":{},"c":{}}}`))), `{"properties":{"c":{},"d":{}},"type":"object"}`; got != want {
		t.Errorf("parameters of a changed schema the tap missed = %s, want the SDK's %s", got, want)
	}
}

// Only the response to a tools/list request carries schemas to keep.
func TestOtherResponsesAreNotTakenForTools(t *testing.T) {
	var tap wiretap
	tapList(t, &tap, "1", `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"f","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}}]}}`)
	if got, want := string(tap.schemas.parameters(listed(t, "f", `{"type":"object","properties":{"b":{},"a":{}}}`))), `{"properties":{"a":{},"b":{}},"type":"object"}`; got != want {
		t.Errorf("parameters = %s, want the SDK's %s", got, want)
	}
}

// The SDK takes the last event of a stream that ends without a blank line
// after it, so the tap must too.
func TestEventStreamEndingWithoutBlankLine(t *testing.T) {
	var tap wiretap
	tapMessage(t, &tap, sent, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	stream := &eventStreamTee{
		body: io.NopCloser(strings.NewReader("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"f\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"b\":{},\"a\":{}}}}]}}")),
		tap:  &tap,
	}
	if _, err := io.ReadAll(stream); err != nil {
		t.Fatal(err)
	}
	if got, want := string(tap.schemas.parameters(listed(t, "f", `{"type":"object","properties":{"b":{},"a":{}}}`))), `{"type":"object","properties":{"b":{},"a":{}}}`; got != want {
		t.Errorf("parameters = %s, want the server's %s", got, want)
	}
}
