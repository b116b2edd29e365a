//go:build unix

package main

import "syscall"

// detachedFromTerminal starts a process in a new session: it has no controlling
// terminal, as when a host starts it.
func detachedFromTerminal() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
