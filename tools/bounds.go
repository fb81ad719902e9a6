package tools

import (
	"encoding/json"
	"fmt"
)

// What a tool from outside toolscope (an API client's, an MCP server's)
// may be, checked before anything else is done with it.
const (
	// MaxNameLength is the longest tool name, OpenAI's own limit.
	MaxNameLength = 64
	// MaxSchemaBytes is the largest parameters schema. A real tool's is
	// a few KiB; compiling costs about a second per MiB, more when the
	// schema holds thousands of subschemas.
	MaxSchemaBytes = 64 << 10
	// MaxSchemaDepth is how deep a parameters schema may nest, counting
	// each JSON object and array: 64 leaves room for about 30 levels of
	// nested properties. The schema compiler's cost grows faster than
	// the square of the depth: 1,000 levels took seconds and gigabytes.
	MaxSchemaDepth = 64
)

// CheckName refuses a tool name that is not 1 to MaxNameLength letters,
// digits, "_", "." or "-": the names models are trained to write, and
// nothing that could be read as markup in a prompt or on a page.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("a tool has an empty name; give it the name the model should call")
	}
	if len(name) > MaxNameLength {
		return fmt.Errorf("tool name %s is %d characters long: at most %d", quoteStart(name), len(name), MaxNameLength)
	}
	for _, r := range name {
		if !nameRune(r) {
			return fmt.Errorf(`tool name %q has %q in it: a tool name may hold only letters, digits, "_", "." and "-"`, name, r)
		}
	}
	return nil
}

func nameRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '.' || r == '-'
}

// quoteStart quotes the start of a name too long to quote whole.
func quoteStart(name string) string {
	return fmt.Sprintf("%q…", name[:MaxNameLength])
}

// CheckSchemaBounds refuses a parameters schema larger than
// MaxSchemaBytes or nested deeper than MaxSchemaDepth. It only scans the
// bytes, so it is cheap enough to run before any other work, and the
// schema compiler never sees what would cost it too much.
func CheckSchemaBounds(schema json.RawMessage) error {
	if len(schema) > MaxSchemaBytes {
		return fmt.Errorf("the parameters schema is %d bytes: at most %d (%d KiB)", len(schema), MaxSchemaBytes, MaxSchemaBytes>>10)
	}
	if nestedDeeperThan(schema, MaxSchemaDepth) {
		return fmt.Errorf("the parameters schema nests more than %d levels deep, counting each JSON object and array: at most %d", MaxSchemaDepth, MaxSchemaDepth)
	}
	return nil
}

// nestedDeeperThan reports whether the JSON text nests objects and arrays
// more than limit levels deep. Brackets inside strings do not count; text
// that is not JSON is left for the parser to refuse.
func nestedDeeperThan(text []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range text {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = b == '\\'
			inString = b != '"'
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > limit {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}
