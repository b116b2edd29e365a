//go:build unix

package stdio

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// useProcessGroup arranges for cmd to start as the leader of a new process group, so
// that its own children (a server started through npx, uv or a shell script) can be
// signalled with it. It reports whether signalling the group is safe: not when the
// caller asked for the child to join an existing group.
func useProcessGroup(cmd *exec.Cmd) bool {
	var attr syscall.SysProcAttr
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr
	}
	switch {
	case attr.Setsid:
		// A session leader already leads its own group; setpgid would fail.
	case attr.Setpgid && attr.Pgid != 0:
		return false
	default:
		attr.Setpgid = true
		attr.Pgid = 0
	}
	cmd.SysProcAttr = &attr
	return true
}

// terminate asks the process (and its group) to stop.
func terminate(p *os.Process, group bool) error { return signalProcess(p, group, syscall.SIGTERM) }

// kill stops the process (and its group) for good.
func kill(p *os.Process, group bool) error { return signalProcess(p, group, syscall.SIGKILL) }

// killGroupLeftovers kills what remains of the group led by pid, once pid has exited:
// children the server left behind would otherwise outlive it.
func killGroupLeftovers(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL) // ESRCH: nothing left
}

func signalProcess(p *os.Process, group bool, sig syscall.Signal) error {
	if group {
		err := syscall.Kill(-p.Pid, sig)
		if !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	err := p.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
