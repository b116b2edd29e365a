package h1

import (
	"context"
	"sync"
)

// watch is how a connection ends its request's I/O when the request's context
// ends: a context.AfterFunc on the context, whose callback aborts the
// connection while a request it covers holds it.
//
// Arming and stopping an AfterFunc costs two allocations and the parent
// context's lock each time (about 0.3 µs). A client that makes every request
// with one long-lived context, as most do, would pay that per request for
// nothing, so a registration may outlive its request: it stays on the
// connection, idle in the pool, and covers the next request made with a
// context of the same Done channel. It is kept on the second request in a row
// with that channel: a context made per request (a server handler's, one with
// a timeout per call) costs one comparison more than before and leaves nothing
// behind, while one shared by many requests is armed about twice per
// connection. A kept registration holds its context (and the values in it)
// until the connection is closed or serves a request with another context:
// at most the pool's connections, for at most IdleTimeout.
//
// The callback aborts only under mu and only while active, so once a request
// gives the connection up (deactivate) no abort of its context can reach the
// next one. A registration whose context ended but whose callback has not run
// yet (stop reports false, fired is not set) could still fire while a later
// request holds the connection: such a connection is not used again.
type watch struct {
	mu     sync.Mutex
	done   <-chan struct{} // the Done channel the registration watches; nil: none
	stop   func() bool     // stops the registration
	keep   bool            // the registration outlives the request that armed it
	fired  bool            // the registration's callback has run
	active bool            // a request the registration covers holds the connection
	last   <-chan struct{} // the Done channel of the previous request: see keep
	arms   int             // registrations made (tests)
}

// fire is the registration's callback.
func (c *conn) fire() {
	c.w.mu.Lock()
	c.w.fired = true
	if c.w.active {
		c.abort()
	}
	c.w.mu.Unlock()
}

// watchContext makes ctx's end abort c's I/O until the request gives c up
// (deactivate). It reports false when c must not be used: an earlier
// registration's callback is due and could end this request.
func (c *conn) watchContext(ctx context.Context) bool {
	done := ctx.Done()
	if done == nil {
		return true // a registration kept for another context stays, inactive
	}
	w := &c.w
	w.mu.Lock()
	keep := done == w.last
	w.last = done
	if w.done == done && !w.fired {
		w.active = true
		w.mu.Unlock()
		return true
	}
	stop, fired := w.stop, w.fired
	w.done, w.stop, w.fired = done, nil, false
	w.keep, w.active = keep, true
	w.arms++
	w.mu.Unlock()
	if stop != nil && !stop() && !fired {
		w.mu.Lock()
		w.done, w.active = nil, false
		w.mu.Unlock()
		return false
	}
	stop = context.AfterFunc(ctx, c.fireFn)
	w.mu.Lock()
	w.stop = stop
	w.mu.Unlock()
	return true
}

// deactivate ends the registration's cover of the request holding c, and stops
// a registration not kept. It reports false when the context ended while the
// request held c: its callback aborted c, or may still run.
func (c *conn) deactivate() bool {
	w := &c.w
	w.mu.Lock()
	w.active = false
	var stop func() bool
	if !w.keep {
		stop = w.stop
		w.done, w.stop = nil, nil
	}
	w.mu.Unlock()
	return stop == nil || stop()
}

// unwatch stops the registration: c is being closed.
func (c *conn) unwatch() {
	w := &c.w
	w.mu.Lock()
	stop := w.stop
	w.done, w.stop, w.active = nil, nil, false
	w.mu.Unlock()
	if stop != nil {
		stop()
	}
}
