package testkit

import (
	"testing"
	"time"
)

// ReceiveWithin is Receive with a limit of the test's choosing.
func ReceiveWithin[T any](t testing.TB, ch <-chan T, limit time.Duration) T {
	t.Helper()
	return receiveWithin(t, ch, limit)
}

// WaitIdleWithin is WaitIdle with a limit of the test's choosing.
func (r *Requests) WaitIdleWithin(t testing.TB, method string, limit time.Duration) {
	t.Helper()
	r.waitIdleWithin(t, method, limit)
}
