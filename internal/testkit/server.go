package testkit

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// NewServer starts an HTTP test server for h on 127.0.0.1 and stops it with
// CloseServer when the test ends (cleanups registered later run before it, so a
// handler's own graceful Close registered after NewServer runs first).
func NewServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() { CloseServer(ts) })
	return ts
}

// CloseServer stops ts without waiting on its clients. httptest.Server.Close waits for
// every active request, so a long-lived response (an SSE stream, or a handler
// relaying one) that a client left open keeps it waiting for as long as the client
// lives: a test that failed before closing its client would hang in Close instead of
// failing. CloseServer first closes the listener and every connection, active ones
// included, which cancels each request's context and makes each write fail; then it
// waits, as Close does, for the handlers to return. A handler that neither writes
// nor watches its request's context can still keep it waiting.
func CloseServer(ts *httptest.Server) {
	_ = ts.Config.Close() // the listener and every connection; the handlers may still run
	ts.Close()            // waits for them
}

// TeardownLimit is how long tests let a teardown take (see DeferredCleanups.RunWithin)
// before they call it hung. It only detects a hang: a working teardown of test servers
// takes milliseconds, and RunWithin returns as soon as it is done.
const TeardownLimit = 10 * time.Second

// DeferredCleanups is a testing.TB that keeps the functions given to Cleanup until
// RunWithin runs them, so that a test can check its own teardown: that it ends, in
// time, and what it leaves behind. Everything else goes to the wrapped TB.
type DeferredCleanups struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

// Cleanup keeps f for RunWithin.
func (d *DeferredCleanups) Cleanup(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cleanups = append(d.cleanups, f)
}

// Len returns how many cleanups are waiting.
func (d *DeferredCleanups) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.cleanups)
}

// RunWithin runs the waiting cleanups, the last registered first, and fails t if
// they have not all returned within limit. The limit only detects a hang: a teardown
// that works returns as soon as it is done. After a failure the cleanups go on
// running in the background; they cannot be stopped from outside.
func (d *DeferredCleanups) RunWithin(t testing.TB, limit time.Duration) {
	t.Helper()
	d.mu.Lock()
	cleanups := d.cleanups
	d.cleanups = nil
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		t.Fatalf("teardown did not finish within %v", limit)
	}
}
