//go:build unix

package mcpkit

import "syscall"

// descriptorLimit returns the process's limit on open file descriptors (the
// soft RLIMIT_NOFILE, which Go raises to the hard limit at start), or 0 when
// it cannot tell.
func descriptorLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return uint64(rl.Cur) // int64 on some systems
}
