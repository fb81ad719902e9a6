//go:build !unix

package mcp_test

import "testing"

func wantReaped(t *testing.T, pid int) {
	t.Helper()
	t.Logf("cannot check on this system that process %d was reaped", pid)
}
