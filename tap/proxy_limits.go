package tap

import (
	"errors"
	"net"
	"time"
)

// awaitRequest waits for the first byte of the client's next request: for the
// connection's first request at most ReadHeaderTimeout, later ones at most
// IdleTimeout while no response is under way (relayResponses arms it when the
// last one ends). Then it bounds the header's reading by ReadHeaderTimeout;
// the caller lifts the deadline once the header is read. The body is not
// bounded: a request being relayed is the client's to send at its pace.
func (c *proxyConn) awaitRequest() error {
	c.mu.Lock()
	c.waiting = true
	switch {
	case c.served == 0:
		c.setDeadline(c.p.opts.ReadHeaderTimeout)
	case c.inflight == 0:
		c.setDeadline(c.p.opts.IdleTimeout)
	}
	c.mu.Unlock()
	_, err := c.cbr.Peek(1)
	c.mu.Lock()
	c.waiting = false
	c.served++
	c.setDeadline(c.p.opts.ReadHeaderTimeout)
	c.mu.Unlock()
	return err
}

// idleNow is called, with c.mu held, when the last response under way has
// ended: a serve waiting for the next request starts the idle bound.
func (c *proxyConn) idleNow() {
	if c.waiting && c.inflight == 0 {
		c.setDeadline(c.p.opts.IdleTimeout)
	}
}

// setDeadline sets the client connection's read deadline d from now; a
// negative d (no bound) clears it.
func (c *proxyConn) setDeadline(d time.Duration) {
	var t time.Time
	if d > 0 {
		t = time.Now().Add(d)
	}
	_ = c.client.SetReadDeadline(t)
}

// isTimeout reports whether err is a connection's deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
