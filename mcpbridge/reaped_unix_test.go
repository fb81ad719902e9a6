//go:build unix

package mcpbridge_test

import (
	"errors"
	"fmt"
	"syscall"
)

// reaped says whether process pid is gone, zombie included.
func reaped(pid int) error {
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("process %d is still there (kill 0: %v)", pid, err)
	}
	return nil
}
