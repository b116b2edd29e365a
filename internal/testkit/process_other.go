//go:build !unix

package testkit

import (
	"os"
	"os/exec"
)

// OwnProcessGroup does nothing where there are no process groups.
func OwnProcessGroup(cmd *exec.Cmd) {}

// KillGroupOnCancel makes Wait, after a cancelled context killed cmd, wait at most
// a few seconds for its output pipes (there are no process groups here).
func KillGroupOnCancel(cmd *exec.Cmd) { cmd.WaitDelay = waitDelay }

// TerminateGroup stops the process pid.
func TerminateGroup(pid int) { KillGroup(pid) }

// KillGroup kills the process pid, if it still runs.
func KillGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
