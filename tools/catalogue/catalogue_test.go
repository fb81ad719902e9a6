package catalogue_test

import (
	"testing"

	"github.com/toolscope/toolscope/tools"
	"github.com/toolscope/toolscope/tools/catalogue"
)

// TestEveryToolRegisters holds the bundled file to what the docs promise:
// 1,190 tools, each one toolscope accepts (a valid name and schema), no
// two of one name.
func TestEveryToolRegisters(t *testing.T) {
	ts := catalogue.Tools()
	if len(ts) != 1190 {
		t.Fatalf("%d tools, want 1190", len(ts))
	}
	if _, err := tools.NewRegistry(ts...); err != nil {
		t.Fatal(err)
	}
}
