package mcp

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes each tool's inputSchema into a map, and a map forgets
// the order of the schema's properties: the order its author meant them
// to be read in, and the one a model writes arguments in (see
// tools.PropertyOrder). The SDK offers no hook that sees a result before
// it is decoded, so the wiretap keeps each listed schema as the bytes of
// the tools/list response wrote it.

// listedSchemas keeps the inputSchema of each tool a server listed, as
// the server wrote it.
type listedSchemas struct {
	mu      sync.Mutex
	pending map[string]bool            // raw JSON ids of the tools/list requests not yet answered
	byName  map[string]json.RawMessage // the inputSchema last listed under each tool name
}

// observe notes the tools/list requests sent, and keeps the schemas of
// the tools in their responses. It must see a response before the SDK
// does; the taps record a message before they pass its last byte on.
func (l *listedSchemas) observe(direction string, m rpcMessage) {
	switch {
	case direction == sent && m.method == "tools/list" && m.id != "":
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.pending == nil || firstPage(m.raw) {
			// A listing starts over: what earlier ones kept, and the
			// requests they never saw answered, are done with.
			l.pending = make(map[string]bool)
			l.byName = make(map[string]json.RawMessage)
		}
		l.pending[m.id] = true
	case direction == received && m.method == "" && m.id != "" && l.answered(m.id):
		schemas := schemasIn(m.raw)
		l.mu.Lock()
		defer l.mu.Unlock()
		maps.Copy(l.byName, schemas)
	}
}

// firstPage reports whether a tools/list request asks for the first page:
// it names no cursor.
func firstPage(request []byte) bool {
	var r struct {
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	return json.Unmarshal(request, &r) == nil && r.Params.Cursor == nil
}

// answered reports whether id is that of a tools/list request, which its
// response, arriving now, answers.
func (l *listedSchemas) answered(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.pending[id] {
		return false
	}
	delete(l.pending, id)
	return true
}

// schemasIn returns the inputSchema of each tool in a tools/list
// response, by tool name. An error response has none.
func schemasIn(response []byte) map[string]json.RawMessage {
	var r struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(response, &r) != nil {
		return nil
	}
	schemas := make(map[string]json.RawMessage, len(r.Result.Tools))
	for _, t := range r.Result.Tools {
		if t.InputSchema != nil {
			schemas[t.Name] = t.InputSchema
		}
	}
	return schemas
}

// parameters is t's inputSchema as the server wrote it, given the
// "type": "object" every inputSchema must have if it lacks one, rather
// than losing the tool. The bytes kept for t's name are used only if they
// decode to the very schema the SDK decoded, so a response the tap could
// not read (one too large, say) leaves no older schema in its place:
// t's schema is then the SDK's map encoded again, in sorted order.
func (l *listedSchemas) parameters(t *sdk.Tool) json.RawMessage {
	l.mu.Lock()
	raw := l.byName[t.Name]
	l.mu.Unlock()
	if raw != nil && decodesTo(raw, t.InputSchema) {
		if typed, ok := withObjectType(raw); ok {
			return typed
		}
	}
	return reencoded(t.InputSchema)
}

func decodesTo(raw json.RawMessage, decoded any) bool {
	var v any
	return json.Unmarshal(raw, &v) == nil && reflect.DeepEqual(v, decoded)
}

// withObjectType adds "type": "object" to a schema object that has no
// type, at its front, so that the rest keeps its bytes and its order. It
// fails on anything but a JSON object.
func withObjectType(schema json.RawMessage) (json.RawMessage, bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil || top == nil {
		return nil, false
	}
	if _, ok := top["type"]; ok {
		return schema, true
	}
	rest := bytes.TrimSpace(schema)[1:] // all after the '{'
	typed := []byte(`{"type":"object"`)
	if len(bytes.TrimSpace(rest)) > 1 { // more than the closing '}'
		typed = append(typed, ',')
	}
	return append(typed, rest...), true
}

// reencoded is the SDK's decoded inputSchema encoded again, with the type
// added as withObjectType adds it.
func reencoded(decoded any) json.RawMessage {
	schema, _ := decoded.(map[string]any)
	if _, ok := schema["type"]; !ok {
		typed := map[string]any{"type": "object"}
		maps.Copy(typed, schema)
		schema = typed
	}
	data, _ := json.Marshal(schema) // decoded from JSON, so it encodes
	return data
}
