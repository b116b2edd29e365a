package mcp_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// connect joins a client to srv over an in-memory pair. Every message either side
// sends is validated against the official schema of the negotiated version. The
// session is a legacy one (initialize at the newest legacy version) unless opts
// names a version: the tests that use it exercise the legacy era, and the
// stateless era has its own (client_stateless_test.go).
func connect(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	if opts.ProtocolVersion == "" {
		o := *opts
		o.ProtocolVersion = protocol.LatestLegacy
		opts = &o
	}
	return mcptest.Connect(t, srv, mcptest.NewClient(opts), nil)
}

// rawConn connects a raw transport end to srv, for tests that speak JSON by hand.
// The server's messages are schema-checked.
func rawConn(t *testing.T, srv *mcp.Server) transport.Conn {
	t.Helper()
	c, s := memory.NewPair()
	return rawConnOver(t, srv, c, wirecheck.Wrap(t, s, wirecheck.Server))
}

// uncheckedConn is rawConn without the schema check, for tests that send malformed
// input: the JSON-RPC answer to a message whose id cannot be read has "id": null,
// which JSON-RPC 2.0 requires and the MCP schemas (which type every id) do not allow.
func uncheckedConn(t *testing.T, srv *mcp.Server) transport.Conn {
	t.Helper()
	c, s := memory.NewPair()
	return rawConnOver(t, srv, c, s)
}

func rawConnOver(t *testing.T, srv *mcp.Server, c, s transport.Conn) transport.Conn {
	t.Helper()
	ss, err := srv.Connect(testkit.Context(t), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })
	return c
}

// roundTrip writes one raw message and reads the next message back.
func roundTrip(t *testing.T, c transport.Conn, msg string) string {
	t.Helper()
	ctx := testkit.Context(t)
	if err := c.Write(ctx, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	return readRaw(t, c)
}

func readRaw(t *testing.T, c transport.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(testkit.Context(t), 5*time.Second)
	defer cancel()
	b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	return string(b)
}

// newServer returns a test server whose diagnostics (e.g. the stack of a panicking
// handler) are discarded rather than printed.
func newServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return mcp.NewServer(protocol.Implementation{Name: "test-server", Version: "1.0"}, opts)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func text(t *testing.T, res *protocol.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 || res.Content[0].Type != protocol.ContentTypeText {
		t.Fatalf("want one text block, got %+v", res.Content)
	}
	return res.Content[0].Text
}
