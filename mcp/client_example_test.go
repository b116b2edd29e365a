package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// A client detects the era of the server it connects to: a stateless server
// (2026-07-28) answers its server/discover probe, a legacy one is initialized.
// Input the server asks for in the middle of a call goes to the same handlers in
// both eras.
func ExampleClient_Connect() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1"}, nil)
	_ = srv.AddRawTool(&protocol.Tool{Name: "greet"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		answer, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err // in the stateless era: the client answers, then calls again
		}
		return protocol.NewToolResultText(fmt.Sprintf("Hello, %v!", answer.Content["name"])), nil
	})
	for _, version := range []string{"", protocol.Version20251125} { // detect; force a legacy session
		c, s := memory.NewPair()
		ss, _ := srv.Connect(ctx, s)
		cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1"}, &mcp.ClientOptions{
			ProtocolVersion: version,
			ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
				return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
			},
		}).Connect(ctx, c)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := cs.CallTool(ctx, &protocol.CallToolParams{Name: "greet"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s stateless=%v: %s\n", cs.ProtocolVersion(), cs.IsStateless(), res.Content[0].Text)
		_ = cs.Close()
		_ = ss.Close()
	}
	// Output:
	// 2026-07-28 stateless=true: Hello, Ada!
	// 2025-11-25 stateless=false: Hello, Ada!
}
