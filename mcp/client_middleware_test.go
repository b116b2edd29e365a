package mcp_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// A client session wraps its outgoing middleware once (at Connect), not per
// call, and a result the middleware replaces with a Go value still reaches the
// caller.
func TestClientMiddlewareWrappedOnce(t *testing.T) {
	var wraps, calls atomic.Int32
	replace := false
	mw := func(next mcp.Invoker) mcp.Invoker {
		wraps.Add(1)
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			res, err := next(ctx, c)
			if c.Direction == mcp.Outgoing && c.Method == "tools/call" {
				calls.Add(1)
				if replace && err == nil {
					var v map[string]any
					if err := json.Unmarshal(res.(json.RawMessage), &v); err != nil {
						return nil, err
					}
					v["content"] = []any{map[string]any{"type": "text", "text": "replaced"}}
					return v, nil
				}
			}
			return res, err
		}
	}
	cs, _ := connect(t, echoServer(t, nil), &mcp.ClientOptions{Middleware: []mcp.Middleware{mw}})
	ctx := testkit.Context(t)
	before := wraps.Load() // Connect's own, and any for what the server sent
	for range 3 {
		res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "x"})
		must(t, err)
		if got := text(t, res); got != "hello x" {
			t.Errorf("result %q", got)
		}
	}
	replace = true
	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "x"})
	must(t, err)
	if got := text(t, res); got != "replaced" {
		t.Errorf("result %q, want the middleware's", got)
	}
	if calls.Load() != 4 || wraps.Load() != before {
		t.Errorf("%d calls wrapped the middleware %d more times, want 4 calls and none", calls.Load(), wraps.Load()-before)
	}
}
