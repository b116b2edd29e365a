package mcp_test

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestBatchNotifiesOncePerList: many changes inside Batch reach a connected
// client as one list_changed per kind of list, after the batch.
func TestBatchNotifiesOncePerList(t *testing.T) {
	srv := newServer(t, nil)
	c := rawConn(t, srv)
	roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	must(t, c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	noop := func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) { return nil, nil }
	srv.Batch(func() {
		for _, name := range []string{"a", "b", "c"} {
			must(t, srv.AddRawTool(&protocol.Tool{Name: name}, noop))
		}
		srv.Batch(func() { // nested: still held back
			srv.RemoveTools("b")
			must(t, srv.AddPrompt(&protocol.Prompt{Name: "p"}, func(ctx context.Context, r *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
				return nil, nil
			}))
		})
	})
	// A ping answered after the notifications shows that no more came.
	must(t, c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)))
	var got []string
	for {
		msg := readRaw(t, c)
		if msg == `{"jsonrpc":"2.0","id":2,"result":{}}` {
			break
		}
		got = append(got, msg)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("notifications = %q, want %q", got, want)
	}
	// Outside a batch, each change is told at once again.
	srv.RemoveTools("a")
	if msg := readRaw(t, c); msg != want[0] {
		t.Errorf("after the batch: %s, want %s", msg, want[0])
	}
}
