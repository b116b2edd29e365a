package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// deadliner is an input whose blocked reads a past deadline ends: a pipe in the
// runtime's poller (the pipes of a started subprocess, a server's standard input
// once pollableInput has switched it), a socket.
type deadliner interface {
	io.Reader
	SetReadDeadline(t time.Time) error
}

// aLongTimeAgo is a deadline in the past: setting it ends a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// directReader is what a lineConn whose input takes deadlines needs to read on
// the goroutine that calls read, with no goroutine of its own in between (which
// costs two hand-overs per message).
//
// A read's context is watched by a context.AfterFunc that sets a past deadline
// when the context ends. rpcconn reads with one long-lived context, so the watch is
// set once per context, not once per read: it is moved when read is called with a
// context of another Done channel. Close sets a past deadline for good (draining,
// if asked, goes on with it cleared). A deadline error is not final for the
// lineReader, which keeps a line it was interrupted in the middle of.
type directReader struct {
	in deadliner
	// slot has capacity 1: holding its token means being the one reader, owning
	// lineConn.lines, lineConn.readErr and done. After close the drain keeps it.
	slot chan struct{}
	done <-chan struct{} // Done of the watched context; nil when none is

	mu          sync.Mutex  // guards the deadline of in and the fields below
	gen         uint64      // counts the contexts watched: a stale watch does nothing
	stop        func() bool // stops the watch of the current context; nil after close
	interrupted bool        // a past deadline is set because the watched context ended
	closed      bool        // close has set a past deadline
}

// readDirect is read in direct mode. A second reader waits for the first (or
// for its context to end, or close).
func (c *lineConn) readDirect(ctx context.Context) ([]byte, error) {
	d := c.direct
	done := ctx.Done()
	select {
	case d.slot <- struct{}{}:
	default:
		select {
		case d.slot <- struct{}{}:
		case <-c.closed:
			return nil, errClosedLocally
		case <-done:
			return nil, ctx.Err()
		}
	}
	defer func() { <-d.slot }()
	if done != d.done {
		d.watch(ctx, done)
	}
	// Let what the last message started run before taking the next: the
	// goroutine this mode replaces gave way at each hand-over, and without
	// that, a server with messages pipelined reads all that are buffered
	// before its handlers answer any, and its peer waits in bursts.
	runtime.Gosched()
	for {
		if c.isClosed() {
			return nil, errClosedLocally
		}
		select {
		case <-done:
			return nil, ctx.Err()
		default:
		}
		msg, err := c.lines.next()
		switch {
		case c.isClosed():
			// Closing interrupted the read, or made the input fail: that is not
			// the peer's doing. A message read meanwhile goes with the rest.
			return nil, errClosedLocally
		case err == nil, errors.Is(err, jsonrpc.ErrMessageTooLarge):
			return msg, err
		case !errors.Is(err, os.ErrDeadlineExceeded):
			if c.readErr == nil {
				c.readErr = finalReadError(err)
			}
			return nil, c.readErr
		}
		// Interrupted: the context has ended (the loop returns its error), or a
		// deadline set by someone else, which is cleared.
		d.clearStray()
	}
}

// watch makes the end of ctx (whose Done is done) interrupt reads, in place of
// the context watched so far, and clears the past deadline that one's end set.
func (d *directReader) watch(ctx context.Context, done <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
	d.gen++
	if d.interrupted && !d.closed {
		d.in.SetReadDeadline(time.Time{})
		d.interrupted = false
	}
	d.done = done
	if done != nil && !d.closed {
		gen := d.gen
		d.stop = context.AfterFunc(ctx, func() { d.interrupt(gen) })
	}
}

// interrupt ends a blocked read, and every later one until the next watch, when
// the context of watch number gen has ended.
func (d *directReader) interrupt(gen uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen == d.gen && !d.closed {
		d.in.SetReadDeadline(aLongTimeAgo)
		d.interrupted = true
	}
}

// clearStray clears a past deadline that neither close nor the watched context
// set: standard input's pollable File is shared, and an earlier connection on it
// sets one when it closes.
func (d *directReader) clearStray() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed && !d.interrupted {
		d.in.SetReadDeadline(time.Time{})
	}
}

// interruptForClose ends a read in progress, and every later one, and starts
// draining the input if the connection does so after close.
func (c *lineConn) interruptForClose() {
	d := c.direct
	d.mu.Lock()
	d.closed = true
	d.in.SetReadDeadline(aLongTimeAgo)
	if d.stop != nil {
		d.stop() // the context may outlive the connection: let go of it
		d.stop = nil
	}
	d.mu.Unlock()
	if c.drainAfterClose {
		go c.drain()
	}
}

// drain consumes the input after close, until it ends or fails, so that the peer
// never blocks writing. It takes the reader's token, once a read in progress has
// returned, and keeps it.
func (c *lineConn) drain() {
	d := c.direct
	d.slot <- struct{}{}
	d.mu.Lock()
	d.in.SetReadDeadline(time.Time{})
	d.mu.Unlock()
	for {
		_, err := c.lines.next()
		switch {
		case err == nil, errors.Is(err, jsonrpc.ErrMessageTooLarge):
		case errors.Is(err, os.ErrDeadlineExceeded):
			d.mu.Lock()
			d.in.SetReadDeadline(time.Time{})
			d.mu.Unlock()
		default:
			return
		}
	}
}
