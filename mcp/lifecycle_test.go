package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

func TestVersionNegotiation(t *testing.T) {
	srv := toolServer(t)
	for _, v := range []string{protocol.Version20241105, protocol.Version20250326, protocol.Version20250618, protocol.Version20251125} {
		cs, ss := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: v})
		if cs.ProtocolVersion() != v || ss.ProtocolVersion() != v {
			t.Errorf("asked %s, negotiated client %s server %s", v, cs.ProtocolVersion(), ss.ProtocolVersion())
		}
	}
	// A version the server does not know gets the server's latest.
	c := rawConn(t, srv)
	got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if !strings.Contains(got, `"protocolVersion":"`+protocol.LatestLegacy+`"`) {
		t.Errorf("unknown version answered %s", got)
	}
}

func TestMalformedInput(t *testing.T) {
	c := uncheckedConn(t, toolServer(t))
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("ping before initialize: %s", got)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(got, `"code":-32600`) {
		t.Errorf("tools/list before initialize: %s", got)
	}
	init := `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	roundTrip(t, c, init)
	if got := roundTrip(t, c, strings.Replace(init, `"id":3`, `"id":4`, 1)); !strings.Contains(got, `"code":-32600`) {
		t.Errorf("second initialize: %s", got)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":5,"method":"no/such"}`); !strings.Contains(got, `"code":-32601`) {
		t.Errorf("unknown method: %s", got)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}`); !strings.Contains(got, `"id":6,"error":{"code":-32602`) {
		t.Errorf("malformed params: %s", got)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call",`); !strings.Contains(got, `"id":null,"error":{"code":-32700`) {
		t.Errorf("malformed JSON: %s", got)
	}
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"verbose"}}`); !strings.Contains(got, `"id":8,"error":{"code":-32602`) {
		t.Errorf("unknown log level: %s", got)
	}
	// The server is still there.
	if got := roundTrip(t, c, `{"jsonrpc":"2.0","id":9,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Errorf("ping after bad input: %s", got)
	}
}

func TestBatchesOnlyIn20250326(t *testing.T) {
	for _, tc := range []struct {
		version string
		batch   bool
	}{{protocol.Version20250326, true}, {protocol.Version20250618, false}} {
		c := uncheckedConn(t, toolServer(t))
		roundTrip(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		got := roundTrip(t, c, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"b"}}}]`)
		if tc.batch {
			var replies []map[string]any
			if err := json.Unmarshal([]byte(got), &replies); err != nil || len(replies) != 2 || !strings.Contains(got, "hello b") {
				t.Errorf("%s batch reply: %s", tc.version, got)
			}
		} else if !strings.Contains(got, `"id":null,"error":{"code":-32600`) {
			t.Errorf("%s batch accepted: %s", tc.version, got)
		}
	}
}

func TestPingBothWays(t *testing.T) {
	cs, ss := connect(t, toolServer(t), nil)
	ctx := testkit.Context(t)
	must(t, cs.Ping(ctx))
	must(t, ss.Ping(ctx))
}

func TestMiddlewareSeesEveryMethod(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(side string) mcp.Middleware {
		return func(next mcp.Invoker) mcp.Invoker {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				mu.Lock()
				seen = append(seen, side+" "+c.Direction.String()+" "+c.Method)
				mu.Unlock()
				return next(ctx, c)
			}
		}
	}
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{record("server")}})
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		_, err := req.ListRoots(ctx)
		return "ok", err
	}))
	cs, _ := connect(t, srv, &mcp.ClientOptions{Roots: []protocol.Root{}, Middleware: []mcp.Middleware{record("client")}})
	_, err := cs.CallTool(testkit.Context(t), "roots", nil)
	must(t, err)
	mu.Lock()
	got := strings.Join(seen, "\n")
	mu.Unlock()
	for _, want := range []string{
		"client outgoing initialize", "server incoming initialize", "client outgoing notifications/initialized",
		"client outgoing tools/call", "server incoming tools/call", "server outgoing roots/list", "client incoming roots/list",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("middleware did not see %q; saw:\n%s", want, got)
		}
	}
}

func TestMiddlewareCanShortCircuit(t *testing.T) {
	deny := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method == protocol.MethodToolsCall {
				return nil, &jsonrpc.Error{Code: -32001, Message: "denied by policy"}
			}
			return next(ctx, c)
		}
	}
	srv := toolServer(t)
	cs, _ := connect(t, srv, &mcp.ClientOptions{Middleware: []mcp.Middleware{deny}})
	_, err := cs.CallTool(testkit.Context(t), "echo", nil)
	if err == nil || !strings.Contains(err.Error(), "denied by policy") {
		t.Fatalf("err = %v", err)
	}
}

func TestServerForgetsEndedSessions(t *testing.T) {
	srv := newServer(t, nil)
	_, ss := connect(t, srv, nil)
	if n := len(srv.Sessions()); n != 1 {
		t.Fatalf("%d sessions while connected, want 1", n)
	}
	must(t, ss.Close())
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("%d sessions after the session ended, want 0", n)
	}
}
