//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup puts a server in a process group of its own, so that it
// and whatever it starts (npx starts node, for one) can be signalled
// together, and so that Ctrl-C in a terminal reaches toolscope alone,
// which then shuts its servers down in order.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup signals the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) {
	_ = syscall.Kill(-pid, sig)
}
