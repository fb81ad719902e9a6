package buildinfo

import "testing"

// A test binary has no stamped module version: the go command marks it
// "(devel)", which must read as "devel", never as a version.
func TestVersionUnstamped(t *testing.T) {
	if got := Version(); got != "devel" {
		t.Errorf("Version() = %q, want devel", got)
	}
}
