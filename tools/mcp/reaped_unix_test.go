//go:build unix

package mcp_test

import (
	"errors"
	"syscall"
	"testing"
)

// wantReaped checks that process pid is gone, zombie included.
func wantReaped(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d is still there (kill 0: %v)", pid, err)
	}
}
