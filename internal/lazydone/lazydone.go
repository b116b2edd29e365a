// Package lazydone is a "done" channel made only when someone waits on it.
//
// An object that ends once (a connection, a session) is often asked whether it
// has ended, but waited on only now and then; many of them (idle HTTP sessions)
// are never waited on at all. A channel made up front costs each of them an
// allocation of about a hundred bytes; a Done costs 16 bytes in the object and
// makes its channel on the first Wait.
package lazydone

import "sync/atomic"

// closed is the channel every Done closed before anyone waited on it returns.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Done is closed once. Its zero value is open. It must not be copied after first
// use.
type Done struct {
	ch atomic.Value // chan struct{}: nil until Wait or Close
}

// Wait returns a channel that is closed when Close is called (at once, if it
// was).
func (d *Done) Wait() <-chan struct{} {
	if c := d.ch.Load(); c != nil {
		return c.(chan struct{})
	}
	c := make(chan struct{})
	if d.ch.CompareAndSwap(nil, c) {
		return c
	}
	return d.ch.Load().(chan struct{}) // Close or another Wait came first
}

// Close closes d: Wait's channel is closed, IsClosed reports true. Call it once.
func (d *Done) Close() {
	if d.ch.CompareAndSwap(nil, closed) {
		return // nobody waits: nothing to make
	}
	close(d.ch.Load().(chan struct{}))
}

// IsClosed reports whether Close has been called. It makes no channel.
func (d *Done) IsClosed() bool {
	c := d.ch.Load()
	if c == nil {
		return false
	}
	select {
	case <-c.(chan struct{}):
		return true
	default:
		return false
	}
}
