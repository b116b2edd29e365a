//go:build !unix

package conformance

import (
	"os"
	"os/exec"
	"time"
)

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(cmd *exec.Cmd) {}

// killGroupOnCancel makes a cancelled context kill cmd (there are no process groups
// here).
func killGroupOnCancel(cmd *exec.Cmd) { cmd.WaitDelay = 5 * time.Second }

// terminateGroup stops the process pid.
func terminateGroup(pid int) { killGroup(pid) }

// killGroup kills the process pid, if it still runs.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
