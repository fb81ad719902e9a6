//go:build !unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// Without process groups a server is stopped on its own, and only killing
// is possible.

func ownProcessGroup(*exec.Cmd) {}

func signalGroup(pid int, sig syscall.Signal) {
	if p, err := os.FindProcess(pid); err == nil && sig == syscall.SIGKILL {
		_ = p.Kill()
	}
}
