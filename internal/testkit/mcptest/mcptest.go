// Package mcptest connects mcp clients to mcp servers in tests, the plumbing the
// tests of several packages would otherwise copy: an in-memory pair whose messages
// are checked against the official schema of the version in use
// (internal/wirecheck), both sessions started, and both closed when the test ends.
//
// It is the part of the shared test support that needs package mcp, apart from
// package testkit, which the in-package tests of mcp's own dependencies (protocol,
// transport/streamable) import and which therefore must not import mcp.
package mcptest

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// ClientInfo is how the clients of NewClient introduce themselves.
var ClientInfo = protocol.Implementation{Name: "test-client", Version: "1.0"}

// NewClient returns a client named ClientInfo with opts (nil for the defaults).
func NewClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(ClientInfo, opts)
}

// Options adjust Connect and TryConnect. The zero value (and nil) connects over a
// schema-checked in-memory pair, with both sessions running until the test ends.
type Options struct {
	// ServerContext is the context the server session runs in (ending it ends the
	// session). Nil means testkit.Context.
	ServerContext context.Context
	// WrapClient, when set, wraps the client's end of the pair before the client
	// connects over it: to give it an endpoint name (transport.EndpointConn), for
	// instance.
	WrapClient func(transport.Conn) transport.Conn
}

// Connect connects client to srv and returns both sessions; a failure to connect
// fails the test. Both sessions are closed when the test ends.
func Connect(t testing.TB, srv *mcp.Server, client *mcp.Client, opts *Options) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	cs, ss, err := TryConnect(t, srv, client, opts)
	if err != nil {
		t.Fatalf("mcptest: connecting the client: %v", err)
	}
	return cs, ss
}

// TryConnect is Connect for tests of a handshake that may fail: the client's
// error is returned (with the server session, which is closed when the test
// ends). A server that refuses the connection still fails the test.
func TryConnect(t testing.TB, srv *mcp.Server, client *mcp.Client, opts *Options) (*mcp.ClientSession, *mcp.ServerSession, error) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	serverCtx := o.ServerContext
	if serverCtx == nil {
		serverCtx = testkit.Context(t)
	}
	c, s := wirecheck.Pair(t)
	ss, err := srv.Connect(serverCtx, s)
	if err != nil {
		t.Fatalf("mcptest: the server refused the connection: %v", err)
		return nil, nil, err
	}
	t.Cleanup(func() { _ = ss.Close() })
	var clientEnd transport.Conn = c
	if o.WrapClient != nil {
		clientEnd = o.WrapClient(c)
	}
	cs, err := client.Connect(testkit.Context(t), clientEnd)
	if err != nil {
		return nil, ss, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, ss, nil
}
