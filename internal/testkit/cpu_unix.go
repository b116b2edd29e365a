//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user and system) the process has used so
// far: a benchmark's cost that other processes on a busy machine do not
// inflate, as they do its wall time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
