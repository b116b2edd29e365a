package testkit

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// PipeNet is an in-memory network for an HTTP server and its clients, made of
// net.Pipe connections: unlike a real socket, it works inside a
// testing/synctest bubble, where the server's timeouts, the handlers' timers
// and the connections' deadlines all run on the bubble's fake clock. A test
// can then check what minutes of (fake) time do to a connection in
// milliseconds. Serve an http.Server on it (it is the net.Listener) and give
// clients Client; Close it with the server.
type PipeNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewPipeNet returns an open PipeNet.
func NewPipeNet() *PipeNet {
	return &PipeNet{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for a client's connection.
func (p *PipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections already made stay open.
func (p *PipeNet) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Addr returns the address of the listening side.
func (p *PipeNet) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the server: it returns the client's end of a new pipe once
// the server has accepted the other end.
func (p *PipeNet) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	return nil, net.ErrClosed
}

// Client returns an HTTP client whose connections go through p. Call its
// CloseIdleConnections when done, so that no connection outlives the test.
func (p *PipeNet) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: p.Dial, ForceAttemptHTTP2: false}}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
