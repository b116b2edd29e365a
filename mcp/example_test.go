package mcp_test

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// GreetInput is the input of the greet tool in the examples.
type GreetInput struct {
	Name string `json:"name" description:"who to greet"`
}

// A typed tool: the input schema comes from GreetInput, arguments are validated and
// decoded before the handler runs, and a string result becomes a text block.
func ExampleAddTool() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "greet", Description: "Says hello"},
		func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
			return "hello " + in.Name, nil
		})

	// Connect a client in-process (stdio or HTTP work the same way).
	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	res, _ := cs.CallTool(ctx, "greet", GreetInput{Name: "Ada"})
	fmt.Println(res.Content[0].Text)
	res, _ = cs.CallTool(ctx, "greet", nil) // no arguments: the required name is missing
	fmt.Println(res.IsError)
	// Output:
	// hello Ada
	// true
}

// A client lists every tool, following pages, and reports progress of a call.
func ExampleClientSession_Tools() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, nil)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "work"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		for i := 1; i <= 3; i++ {
			_ = req.ReportProgress(ctx, float64(i), 3, "")
		}
		return "done", nil
	})
	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, _ := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, clientEnd)
	defer cs.Close()

	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Println("tool:", tool.Name)
	}
	res, _ := cs.CallTool(ctx, "work", nil, mcp.WithProgress(func(p *protocol.ProgressParams) {
		fmt.Printf("progress %g/%g\n", p.Progress, p.Total)
	}))
	fmt.Println(res.Content[0].Text)
	// Output:
	// tool: work
	// progress 1/3
	// progress 2/3
	// progress 3/3
	// done
}
