package mcp_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// A server wraps its middleware once (at NewServer), not per request, in both
// eras; the Call each request passes through it still carries that request's
// params, which a middleware may change, and a Call a middleware makes itself
// (a copy with other params) reaches the method too.
func TestServerMiddlewareWrappedOnce(t *testing.T) {
	var wraps, calls atomic.Int32
	mw := func(next mcp.Invoker) mcp.Invoker {
		wraps.Add(1)
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction != mcp.Incoming || c.Method != protocol.MethodToolsCall {
				return next(ctx, c)
			}
			calls.Add(1)
			var p protocol.CallToolParams
			if err := json.Unmarshal(c.Params, &p); err != nil {
				return nil, err
			}
			if string(p.Arguments) == `{"message":"copy"}` {
				p.Arguments = json.RawMessage(`{"message":"copied"}`)
				params, _ := json.Marshal(&p)
				cp := *c // a Call of its own
				cp.Params = params
				return next(ctx, &cp)
			}
			return next(ctx, c)
		}
	}
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{mw}})
	if got := wraps.Load(); got != 2 {
		t.Fatalf("NewServer wrapped the middleware %d times, want 2 (once per era)", got)
	}
	ctx := testkit.Context(t)
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
		for _, msg := range []string{"x", "y", "copy"} {
			res, err := cs.CallTool(ctx, "echo", map[string]any{"message": msg})
			must(t, err)
			want := "hello " + msg
			if msg == "copy" {
				want = "hello copied"
			}
			if got := text(t, res); got != want {
				t.Errorf("%s: result %q, want %q", version, got, want)
			}
		}
	}
	if calls.Load() != 6 || wraps.Load() != 2 {
		t.Errorf("%d calls, %d wraps; want 6 calls and still 2 wraps", calls.Load(), wraps.Load())
	}
}

// A Call a middleware builds from scratch is served as a request arriving
// with its method and params, in both eras (in the stateless one its _meta is
// read again from the params).
func TestServerMiddlewareFreshCall(t *testing.T) {
	mw := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction != mcp.Incoming || c.Method != protocol.MethodToolsCall {
				return next(ctx, c)
			}
			return next(ctx, &mcp.Call{Direction: c.Direction, Method: c.Method, Params: c.Params, Session: c.Session})
		}
	}
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{mw}})
	ctx := testkit.Context(t)
	cs, _ := connect(t, srv, nil)
	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "x"})
	must(t, err)
	if got := text(t, res); got != "hello x" {
		t.Errorf("legacy: result %q", got)
	}
	cs, _ = connect(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20260728})
	res, err = cs.CallTool(ctx, "echo", map[string]any{"message": "y"})
	must(t, err)
	if got := text(t, res); got != "hello y" {
		t.Errorf("stateless: result %q", got)
	}
}
