package stdio

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Two JSON-RPC engines talk over a pair of pipes through server connections. An
// oversized message sent by the client is answered with an error and the connection
// goes on.
func TestConnsCarryJSONRPCConn(t *testing.T) {
	ctx := testkit.Context(t)
	aToB, aOut := io.Pipe()
	bToA, bOut := io.Pipe()
	a := NewServerConn(bToA, aOut, &Options{MaxMessageSize: 1024})
	b := NewServerConn(aToB, bOut, &Options{MaxMessageSize: 1024})

	echo := rpcconn.HandlerFunc(func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		return msg.Params, nil
	})
	server := rpcconn.NewConn(b, rpcconn.ConnOptions{Handler: echo})
	server.Start(ctx)
	client := rpcconn.NewConn(a, rpcconn.ConnOptions{})
	client.Start(ctx)

	type payload struct{ S string }
	var got payload
	if err := client.Call(ctx, "echo", payload{"hello"}, &got); err != nil || got.S != "hello" {
		t.Fatalf("echo: %q, %v", got.S, err)
	}
	// The server drops the oversized request but reads its id from the first bytes,
	// so the call fails at once with an error that explains why.
	err := client.Call(ctx, "echo", payload{strings.Repeat("x", 2000)}, &got)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, "exceeds the limit of 1024 bytes") {
		t.Fatalf("oversized call: %v", err)
	}
	if err := client.Call(ctx, "echo", payload{"after"}, &got); err != nil || got.S != "after" {
		t.Fatalf("echo after the oversized message: %q, %v", got.S, err)
	}
	if err := client.Close(); err != nil {
		t.Fatalf("client Close: %v", err)
	}
	<-server.Done()
	if err := server.Err(); err != nil {
		t.Fatalf("server engine ended with %v, want a clean end", err)
	}
}
