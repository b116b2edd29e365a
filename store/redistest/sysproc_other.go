//go:build !linux

package redistest

import "syscall"

// sysProcAttr is the default elsewhere: Stop, run by the test's cleanup, is
// what ends the server.
func sysProcAttr() *syscall.SysProcAttr { return nil }
