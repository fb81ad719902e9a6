package tools

import (
	"fmt"
	"strings"
	"testing"
)

// nestedSchema is an object schema whose one property nests levels
// objects deep: 2×levels+1 levels of JSON.
func nestedSchema(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
}

func TestRegistryRefusesToolsOutOfBounds(t *testing.T) {
	wantRefused(t, []refusal{
		{"markup in the name", fake{name: "x<svg/onload=alert(1)>", schema: emptySchema}, `tool name "x<svg/onload=alert(1)>" has '<' in it`},
		{"a space in the name", fake{name: "send mail", schema: emptySchema}, `has ' ' in it`},
		{"a name past 64", fake{name: strings.Repeat("n", 65), schema: emptySchema}, `is 65 characters long: at most 64`},
		{"1,000 levels deep", fake{name: "deep", schema: nestedSchema(1000)}, `tool "deep": the parameters schema nests more than 64 levels deep`},
		{"over 64 KiB", fake{name: "big", schema: `{"type": "object", "description": "` + strings.Repeat("a", MaxSchemaBytes) + `"}`}, `tool "big": the parameters schema is 65573 bytes: at most 65536 (64 KiB)`},
	})
}

func TestRegistryTakesToolsWithinBounds(t *testing.T) {
	for _, tool := range []Tool{
		fake{name: "a.b-c_D9", schema: emptySchema},
		fake{name: strings.Repeat("n", MaxNameLength), schema: emptySchema},
		fake{name: "deep", schema: nestedSchema((MaxSchemaDepth - 1) / 2)},
		// Brackets in strings are not nesting.
		fake{name: "brackets", schema: `{"type": "object", "description": "` + strings.Repeat("{[", 100) + `\"{"}`},
	} {
		if _, err := NewRegistry(tool); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
}

// BenchmarkAddNestedSchema adds a tool whose schema nests levels objects
// deep: the cost past MaxSchemaDepth is that of refusing it.
func BenchmarkAddNestedSchema(b *testing.B) {
	for _, levels := range []int{16, 31, 1000} {
		tool := fake{name: "deep", schema: nestedSchema(levels)}
		b.Run(fmt.Sprint(levels), func(b *testing.B) {
			for b.Loop() {
				(&Registry{}).Add(tool)
			}
		})
	}
}

// BenchmarkAddWideSchema adds a tool with n properties side by side.
func BenchmarkAddWideSchema(b *testing.B) {
	for _, n := range []int{100, 1000} {
		props := make([]string, n)
		for i := range props {
			props[i] = fmt.Sprintf(`"p%d":{"type":"string","description":"property %d"}`, i, i)
		}
		tool := fake{name: "wide", schema: `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`}
		b.Run(fmt.Sprintf("%d-%dKiB", n, len(tool.schema)>>10), func(b *testing.B) {
			for b.Loop() {
				if err := (&Registry{}).Add(tool); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
