package tools

import (
	"bytes"
	"encoding/json"
)

// JSON encodes v on one line for a model to read. Unlike json.Marshal it
// leaves <, > and & as they are: a model should read "<tool_call>", not
// "\u003ctool_call\u003e".
func JSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}
