package mcpkit

import (
	"net"
	"sync"
)

// LimitListener returns a listener that lets at most n connections accepted
// from ln be open at once: while n are open, Accept waits for one to close,
// and new clients wait in the kernel's accept queue. A flood of idle or slow
// connections then costs the server n descriptors at most, and never makes
// accept fail with "too many open files" (on which net/http retries in a
// loop), while the server's timeouts close the idle ones and let waiting
// clients in.
//
// (golang.org/x/net/netutil.LimitListener does the same; mcpkit keeps its
// own few lines rather than add that module to every user's build.)
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{} // one element per open connection
	done      chan struct{} // closed by Close: Accept stops waiting
	closeOnce sync.Once
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, free: l.slots}, nil
}

// Close closes the listener; an Accept waiting for a slot returns.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn frees its slot when closed (once, however often it is closed).
type limitConn struct {
	net.Conn
	free chan struct{}
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.free })
	return err
}
