package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// A tool that declares task support runs as a task when the client can take
// one: the call is answered at once with the task, the client follows it and
// fetches the result when it is done. Here a 2025-11-25 client asks for the
// task; a 2026-07-28 client declaring the tasks extension gets one without
// asking.
func ExampleServerOptions_tasks() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "reports", Version: "1.0.0"}, &mcp.ServerOptions{
		Tasks: &mcp.TaskOptions{DefaultTTL: 10 * time.Minute},
	})
	defer srv.ShutdownTasks(ctx)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "report", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
			return "report for " + in.Name, nil // imagine minutes of work, stopped when ctx ends
		})

	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: protocol.Version20251125}).Connect(ctx, clientEnd)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	task, err := cs.CallToolAsTask(ctx, "report", map[string]any{"name": "Ada"}, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Status, *task.TTL)
	res, err := cs.AwaitTask(ctx, task.TaskID)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].Text)
	done, _ := cs.GetTask(ctx, task.TaskID)
	fmt.Println(done.Status)
	// Output:
	// working 600000
	// report for Ada
	// completed
}

// RunAsTask lets a handler do a synchronous part first — here, ask the user —
// and hand the rest to a task. A client that cannot take tasks gets the result
// at once, from the same handler.
func ExampleToolRequest_RunAsTask() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "deployer", Version: "1.0.0"}, &mcp.ServerOptions{
		Tasks: &mcp.TaskOptions{}, // declares tasks although no tool declares task support
	})
	defer srv.ShutdownTasks(ctx)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "deploy"},
		func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (*protocol.CallToolResult, error) {
			ok, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "Deploy to production?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"go":{"type":"boolean"}}}`)})
			if err != nil {
				return nil, err // in 2026-07-28: the client is asked, and retries
			}
			if ok.Action != protocol.ElicitActionAccept {
				return protocol.NewToolResultText("not deployed"), nil
			}
			return req.RunAsTask(ctx, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
				return protocol.NewToolResultText("deployed"), nil // the long part
			})
		})

	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: protocol.Version20251125,
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"go": true}}, nil
		},
	}).Connect(ctx, clientEnd)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, _ := cs.CallTool(ctx, "deploy", nil)
	fmt.Println(res.Content[0].Text)
	// Output:
	// deployed
}
