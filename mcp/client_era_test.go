package mcp_test

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// namedConn gives an in-memory connection an endpoint name, as an HTTP or
// subprocess connection has.
type namedConn struct {
	transport.Conn
	name string
}

func (n namedConn) Endpoint() string { return n.name }

func TestClientRemembersTheEraOfAServer(t *testing.T) {
	var rec recorder
	legacy := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware, legacyOnly}})
	client := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, nil)
	connect := func(srv *mcp.Server, name string) (*mcp.ClientSession, error) {
		cs, _, err := mcptest.TryConnect(t, srv, client, &mcptest.Options{
			WrapClient: func(c transport.Conn) transport.Conn { return namedConn{c, name} },
		})
		return cs, err
	}

	if _, err := connect(legacy, "old-server"); err != nil {
		t.Fatal(err)
	}
	cs, err := connect(legacy, "old-server")
	must(t, err)
	if cs.IsStateless() || cs.ProtocolVersion() != protocol.LatestLegacy {
		t.Fatalf("second connection: stateless %v at %q", cs.IsStateless(), cs.ProtocolVersion())
	}
	// The first connection probed; the second went straight to initialize.
	if probes, inits := rec.count(protocol.MethodServerDiscover), rec.count(protocol.MethodInitialize); probes != 1 || inits != 2 {
		t.Errorf("the server saw %d server/discover and %d initialize, want 1 and 2 (%v)", probes, inits, rec.methods())
	}

	// The same name now reaches a server that dropped the legacy era: the
	// remembered era fails once, is forgotten, and the next connection probes.
	statelessOnlyServer := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{statelessOnly}})
	if _, err := connect(statelessOnlyServer, "old-server"); err == nil {
		t.Fatal("initialize at a remembered legacy version succeeded against a stateless-only server")
	}
	cs, err = connect(statelessOnlyServer, "old-server")
	must(t, err)
	if !cs.IsStateless() {
		t.Errorf("after forgetting, the client did not find the stateless era (version %q)", cs.ProtocolVersion())
	}
}

// statelessOnly is server middleware that makes a dual-era server refuse the
// legacy handshake, like a server of the stateless era only.
func statelessOnly(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Direction == mcp.Incoming && c.Method == protocol.MethodInitialize {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", c.Method)
		}
		return next(ctx, c)
	}
}
