package httpguard

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// The settings of every HTTP listener mcpkit runs (the root package's
// NewHTTPServer and Serve, which re-export them, and the tap's): a client that
// connects and sends nothing, trickles its header or keeps a connection idle
// would hold it for ever otherwise, and a flood of connections would exhaust
// the descriptors.
const (
	// DefaultReadHeaderTimeout bounds the reading of a request's header: a
	// connection that opens and sends nothing, or trickles its header, is
	// closed after it.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultConnIdleTimeout closes a kept-alive connection that waits this
	// long for its next request.
	DefaultConnIdleTimeout = 60 * time.Second
	// DefaultMaxHeaderBytes bounds a request's header: room for large
	// Authorization and Mcp-Param-* headers, while a thousand connections
	// trickling headers hold 64 MiB at most, not a GiB (net/http's default).
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxConnections caps the connections a listener holds open; more
	// wait in the kernel's accept queue.
	DefaultMaxConnections = 4096
)

// Listen listens on the TCP address addr ("host:port"). An address without a
// host (":8080") binds 127.0.0.1, so that a server is reachable from other
// machines only when a host says so.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

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
