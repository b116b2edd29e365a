//go:build unix

package mcpkit

import (
	"log/slog"
	"syscall"
	"testing"
)

// TestConnectionCapFitsTheDescriptorLimit: a cap above what the process may
// open is lowered, so that accept never fails with "too many open files".
func TestConnectionCapFitsTheDescriptorLimit(t *testing.T) {
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Skip(err)
	}
	lowered := saved
	lowered.Cur = 300
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Skip(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
			t.Errorf("restoring RLIMIT_NOFILE: %v", err)
		}
	}()
	quiet := slog.New(slog.DiscardHandler)
	for asked, want := range map[int]int{0: 300 - 64, 10_000: 300 - 64, 100: 100, -1: 0} {
		if got := connectionCap(asked, quiet); got != want {
			t.Errorf("connectionCap(%d) with a limit of 300 = %d, want %d", asked, got, want)
		}
	}
}
