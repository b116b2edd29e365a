package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// The pair carries a real JSON-RPC engine on both ends: concurrent calls in both
// directions, then a clean shutdown that both engines see as such.
func TestPairCarriesJSONRPCConn(t *testing.T) {
	ctx := testkit.Context(t)
	echo := rpcconn.HandlerFunc(func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		return msg.Params, nil
	})
	a, b := NewPair()
	client := rpcconn.NewConn(a, rpcconn.ConnOptions{Handler: echo})
	server := rpcconn.NewConn(b, rpcconn.ConnOptions{Handler: echo})
	client.Start(ctx)
	server.Start(ctx)

	var wg sync.WaitGroup
	for i := range 50 {
		for _, caller := range []*rpcconn.Conn{client, server} {
			wg.Go(func() {
				var got struct{ N int }
				if err := caller.Call(ctx, "echo", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), &got); err != nil {
					t.Errorf("call %d: %v", i, err)
				} else if got.N != i {
					t.Errorf("call %d: got %d", i, got.N)
				}
			})
		}
	}
	wg.Wait()

	if err := client.Close(); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	select {
	case <-server.Done():
	case <-ctx.Done():
		t.Fatal("the server engine did not see the client close")
	}
	if err := server.Err(); err != nil {
		t.Fatalf("server engine ended with %v, want a clean end", err)
	}
	if err := client.Err(); err != nil {
		t.Fatalf("client engine ended with %v, want a clean end", err)
	}
}
