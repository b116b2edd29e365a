package testkit

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Timeout bounds every wait of a test that uses this package: Context, Receive and
// Requests.WaitIdle fail the test after it instead of letting a lost event hang the
// whole run. It only detects a hang: a wait that works returns as soon as its event
// happens.
const Timeout = 30 * time.Second

// Context returns the test's context (t.Context(): cancelled when the test ends,
// before its cleanups run) bounded by Timeout, so that a call that blocks on it
// fails its test instead of hanging the run.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Timeout)
	t.Cleanup(cancel)
	return ctx
}

// Receive returns the next value sent on ch (the zero value once ch is closed), and
// fails the test if none comes within Timeout.
func Receive[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	return receiveWithin(t, ch, Timeout)
}

func receiveWithin[T any](t testing.TB, ch <-chan T, limit time.Duration) T {
	t.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("testkit: nothing received within %v", limit)
		var zero T
		return zero
	}
}

// Requests counts the requests an HTTP handler is serving, so that a test can wait
// for the server side of requests to finish — the handler has returned, and with it
// everything it deferred — without polling the state that handler changes. Wrap the
// handler with Handler; the zero value is ready to use.
type Requests struct {
	mu      sync.Mutex
	active  map[string]int // by method; "" counts every request
	waiters []idleWaiter
}

// idleWaiter is one Idle call waiting for its method's count to reach zero.
type idleWaiter struct {
	method string
	idle   chan struct{}
}

// Handler returns h, counting the requests it serves.
func (r *Requests) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.add(req.Method, 1)
		defer r.add(req.Method, -1)
		h.ServeHTTP(w, req)
	})
}

func (r *Requests) add(method string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		r.active = make(map[string]int)
	}
	r.active[method] += n
	r.active[""] += n
	if n > 0 {
		return
	}
	waiting := r.waiters[:0]
	for _, w := range r.waiters {
		if r.active[w.method] == 0 {
			close(w.idle)
		} else {
			waiting = append(waiting, w)
		}
	}
	clear(r.waiters[len(waiting):])
	r.waiters = waiting
}

// Active returns how many requests with method ("" for any method) the handler is
// serving now.
func (r *Requests) Active(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active[method]
}

// Idle returns a channel that is closed as soon as the handler serves no request
// with method ("" for any method): at once if it serves none now.
func (r *Requests) Idle(method string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	idle := make(chan struct{})
	if r.active[method] == 0 {
		close(idle)
		return idle
	}
	r.waiters = append(r.waiters, idleWaiter{method: method, idle: idle})
	return idle
}

// WaitIdle waits until the handler serves no request with method ("" for any
// method), and fails the test if that takes longer than Timeout.
func (r *Requests) WaitIdle(t testing.TB, method string) {
	t.Helper()
	r.waitIdleWithin(t, method, Timeout)
}

func (r *Requests) waitIdleWithin(t testing.TB, method string, limit time.Duration) {
	t.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-r.Idle(method):
	case <-timer.C:
		t.Fatalf("testkit: %d %q requests still being served after %v", r.Active(method), method, limit)
	}
}

// Clock is a manual clock for code that takes its time from a func() time.Time: it
// moves only when Advance moves it, so timeouts and expiry are tested without
// waiting. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock showing start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
