package rpcconn

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file is the push side of a Conn: a transport that receives each message
// on a goroutine of its own (an HTTP handler's) hands it to the connection with
// Receive instead of letting a read loop Read it. The handler then runs on that
// goroutine: no goroutine waits on an idle connection, and a request is answered
// without passing from one goroutine to another.

// pushState is what a pushed connection adds to Conn.
type pushState struct {
	on      bool       // StartPush was called: there is no read loop
	notify  sync.Mutex // runs pushed notifications one at a time, in order
	endOnce sync.Once
}

// errEnded cancels the requests still running when a pushed connection ends.
var errEnded = errors.New("jsonrpc: the connection ended")

// StartPush begins the connection without a read loop: its transport delivers
// every incoming message by calling Receive, and ends the connection with End
// (Close calls End too). The stream's Read is never called. Call StartPush or
// Start, once.
func (c *Conn) StartPush() {
	c.push.on = true
}

// Receive handles one incoming message of a connection started with StartPush,
// on the caller's goroutine: a request runs its handler there and returns once
// the response has been written (handlers of concurrent Receive calls run
// concurrently); a notification runs its handler in turn with the other pushed
// notifications, in the order of their Receive calls; a response completes its
// call. The handler's context is derived from ctx, so cancelling ctx cancels the
// request. msg must not change afterwards. A message received after End is
// dropped.
func (c *Conn) Receive(ctx context.Context, msg *jsonrpc.Message) {
	switch {
	case msg.IsResponse():
		c.deliver(msg)
	case msg.IsNotification():
		c.push.notify.Lock()
		defer c.push.notify.Unlock()
		if c.isClosed() {
			return
		}
		if _, err := c.invoke(ctx, msg); err != nil {
			c.opts.Logger.Debug("jsonrpc: notification handler failed", "method", msg.Method, "error", err)
		}
	default:
		c.startRequest(ctx, msg, nil, true)
	}
}

// isClosed reports whether the connection has ended.
func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// End ends a connection started with StartPush: calls waiting for a response fail
// with jsonrpc.ErrClosed, requests still running are cancelled (their answers are not
// waited for), messages received later are dropped, and Done is closed. err is
// why (nil, or io.EOF, for a clean end; see Err). It may be called more than once;
// only the first call counts.
func (c *Conn) End(err error) {
	c.push.endOnce.Do(func() {
		c.readEnded.Store(true)
		if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
			err = nil
		}
		c.failPending(err) // sets closed: nothing new starts
		c.mu.Lock()
		c.running.each(func(cancel context.CancelCauseFunc) { cancel(errEnded) })
		c.mu.Unlock()
		c.shutdown(err)
	})
}
