package mcptest_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

func newServer(mws ...mcp.Middleware) *mcp.Server {
	return mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"},
		&mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler), Middleware: mws})
}

func TestConnectClosesBothSessionsWhenTheTestEnds(t *testing.T) {
	srv := newServer()
	var cs *mcp.ClientSession
	var ss *mcp.ServerSession
	t.Run("inner", func(t *testing.T) {
		cs, ss = mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}), nil)
		if err := cs.Ping(testkit.Context(t)); err != nil {
			t.Fatalf("ping: %v", err)
		}
		if cs.ProtocolVersion() != protocol.LatestLegacy || ss.ProtocolVersion() != protocol.LatestLegacy {
			t.Errorf("versions %q (client) and %q (server), want %s", cs.ProtocolVersion(), ss.ProtocolVersion(), protocol.LatestLegacy)
		}
		if got := ss.ClientInfo(); got.Name != mcptest.ClientInfo.Name || got.Version != mcptest.ClientInfo.Version {
			t.Errorf("the server sees client %+v, want %+v", got, mcptest.ClientInfo)
		}
	})
	for name, done := range map[string]<-chan struct{}{"client": cs.Done(), "server": ss.Done()} {
		select {
		case <-done:
		default:
			t.Errorf("the %s session outlived its test", name)
		}
	}
}

// countingConn counts the messages written through it.
type countingConn struct {
	transport.Conn
	writes *atomic.Int32
}

func (c countingConn) Write(ctx context.Context, msg []byte) error {
	c.writes.Add(1)
	return c.Conn.Write(ctx, msg)
}

func TestOptions(t *testing.T) {
	var writes atomic.Int32
	serverCtx, stop := context.WithCancel(testkit.Context(t))
	defer stop()
	_, ss := mcptest.Connect(t, newServer(), mcptest.NewClient(nil), &mcptest.Options{
		ServerContext: serverCtx,
		WrapClient:    func(c transport.Conn) transport.Conn { return countingConn{c, &writes} },
	})
	if writes.Load() == 0 {
		t.Error("the client did not connect through WrapClient's connection")
	}
	stop()
	testkit.Receive(t, ss.Done()) // the server session ends with its context
}

func TestTryConnectReturnsTheClientsError(t *testing.T) {
	refuse := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method == protocol.MethodInitialize || c.Method == protocol.MethodServerDiscover {
				return nil, errors.New("no")
			}
			return next(ctx, c)
		}
	}
	cs, ss, err := mcptest.TryConnect(t, newServer(refuse), mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}), nil)
	if err == nil || cs != nil || ss == nil {
		t.Fatalf("TryConnect to a server refusing initialize = (%v, %v, %v), want an error and the server session", cs, ss, err)
	}
}
