//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup makes cmd the leader of a new process group, so that what it
// starts (the suite runs each client through a shell) can be stopped with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroupOnCancel gives cmd (made with exec.CommandContext) its own process group
// and makes a cancelled context kill the whole group.
func killGroupOnCancel(cmd *exec.Cmd) {
	ownProcessGroup(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}

// terminateGroup asks the process group led by pid to stop (SIGTERM).
func terminateGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup kills the process group led by pid, if anything is left in it.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
