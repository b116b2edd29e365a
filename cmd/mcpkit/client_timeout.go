package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// defaultTimeout is how long a client command waits for the answer to one request
// when --timeout is not given.
const defaultTimeout = 60 * time.Second

// requestClock bounds every request the CLI sends, the handshake included: a
// request that has had no answer for the timeout is cancelled (the server is told
// with notifications/cancelled) and fails with a noAnswerError. The clock stops
// while the user answers a prompt — that time is theirs, not the server's — and a
// progress notification from the server winds it back to the full timeout, since a
// server that reports progress is not silent.
//
// The clock is middleware rather than ClientOptions.RequestTimeout because a
// context deadline cannot be paused.
type requestClock struct {
	timeout time.Duration

	mu      sync.Mutex
	paused  int                          // prompts on screen
	pending map[*pendingRequest]struct{} // requests waiting for their answer
}

// pendingRequest is one request the clock is timing.
type pendingRequest struct {
	expire func()
	timer  *time.Timer // nil while the clock is paused
}

// newRequestClock returns a clock for timeout; zero or less means no bound, and
// then the clock is nil (every method of a nil clock does nothing).
func newRequestClock(timeout time.Duration) *requestClock {
	if timeout <= 0 {
		return nil
	}
	return &requestClock{timeout: timeout, pending: make(map[*pendingRequest]struct{})}
}

// noAnswerError is the error of a request the server did not answer in time.
type noAnswerError struct {
	method string
	after  time.Duration
}

func (e *noAnswerError) Error() string {
	return fmt.Sprintf("the server sent no answer to %s within %v (--timeout sets the bound; 0 waits for ever)", e.method, e.after)
}

// middleware times each outgoing request; it restarts the clock of every pending
// request on notifications/progress.
func (c *requestClock) middleware(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, call *mcp.Call) (any, error) {
		if call.Direction == mcp.Incoming {
			if call.Method == protocol.NotificationProgress {
				c.restart()
			}
			return next(ctx, call)
		}
		if call.Notification {
			return next(ctx, call)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		timedOut := &noAnswerError{method: call.Method, after: c.timeout}
		p := &pendingRequest{expire: func() { cancel(timedOut) }}
		c.add(p)
		defer c.remove(p)
		res, err := next(ctx, call)
		if err != nil && context.Cause(ctx) == timedOut {
			return nil, timedOut
		}
		return res, err
	}
}

// add starts timing p, unless the clock is paused.
func (c *requestClock) add(p *pendingRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[p] = struct{}{}
	if c.paused == 0 {
		p.start(c.timeout)
	}
}

// remove stops timing p.
func (c *requestClock) remove(p *pendingRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, p)
	p.stop()
}

// pause stops the clock of every pending request until the matching resume.
func (c *requestClock) pause() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	for p := range c.pending {
		p.stop()
	}
}

// resume undoes a pause: when no pause is left, every pending request gets the
// full timeout again.
func (c *requestClock) resume() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused--; c.paused > 0 {
		return
	}
	for p := range c.pending {
		p.start(c.timeout)
	}
}

// restart gives every pending request the full timeout again (unless paused).
func (c *requestClock) restart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused > 0 {
		return
	}
	for p := range c.pending {
		p.stop()
		p.start(c.timeout)
	}
}

// start arms p's timer; the caller holds the clock's lock.
func (p *pendingRequest) start(d time.Duration) {
	p.timer = time.AfterFunc(d, p.expire)
}

// stop disarms p's timer; the caller holds the clock's lock.
func (p *pendingRequest) stop() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}
