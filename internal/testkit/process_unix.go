//go:build unix

package testkit

import (
	"os/exec"
	"syscall"
)

// OwnProcessGroup makes cmd the leader of a new process group, so that what it
// starts (a shell, npx starting node) can be stopped with it: see KillGroup and
// TerminateGroup. (Where there are no process groups it does nothing.)
func OwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroupOnCancel gives cmd, which must have been made with exec.CommandContext,
// its own process group and makes a cancelled context kill the whole group; Wait
// then waits at most a few seconds for the output pipes the group held.
func KillGroupOnCancel(cmd *exec.Cmd) {
	OwnProcessGroup(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
}

// TerminateGroup asks the process group led by pid to stop (SIGTERM).
func TerminateGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// KillGroup kills the process group led by pid, if anything is left in it.
func KillGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
