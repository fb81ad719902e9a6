package tools

import (
	"bytes"
	"encoding/json"
	"slices"
)

// PropertyOrder returns the names of the top-level properties of a JSON
// Schema object, in the order the schema writes them: the order its author
// meant them to be read, and the one a model that reads the schema writes
// arguments in. Decoding into a map would lose it. PropertyOrder returns
// nil when schema is not valid JSON or has no "properties" object; a name
// written twice counts once, where it first appears.
func PropertyOrder(schema json.RawMessage) []string {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s["properties"]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if name := key.(string); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}
