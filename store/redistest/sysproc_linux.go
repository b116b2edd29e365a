package redistest

import "syscall"

// sysProcAttr has the kernel kill redis-server if the test process dies before
// stopping it, so a crashed test leaves no server behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
