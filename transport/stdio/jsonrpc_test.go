package stdio

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Two JSON-RPC engines talk over a pair of pipes through server connections. An
// oversized message sent by the client is answered with an error and the connection
// goes on.
func TestConnsCarryJSONRPCConn(t *testing.T) {
	ctx := testCtx(t)
	aToB, aOut := io.Pipe()
	bToA, bOut := io.Pipe()
	a := NewServerConn(bToA, aOut, &Options{MaxMessageSize: 1024})
	b := NewServerConn(aToB, bOut, &Options{MaxMessageSize: 1024})

	echo := jsonrpc.HandlerFunc(func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		return msg.Params, nil
	})
	server := jsonrpc.NewConn(b, jsonrpc.ConnOptions{Handler: echo})
	server.Start(ctx)
	client := jsonrpc.NewConn(a, jsonrpc.ConnOptions{})
	client.Start(ctx)

	type payload struct{ S string }
	var got payload
	if err := client.Call(ctx, "echo", payload{"hello"}, &got); err != nil || got.S != "hello" {
		t.Fatalf("echo: %q, %v", got.S, err)
	}
	// The server drops the oversized request without reading its id, so its error
	// answer carries a null id that the client cannot match: the call ends with its
	// context. What matters is that it fails and the connection goes on.
	shortCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if err := client.Call(shortCtx, "echo", payload{strings.Repeat("x", 2000)}, &got); err == nil {
		t.Fatal("an oversized call succeeded")
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
