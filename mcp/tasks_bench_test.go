package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// benchTaskSession returns a 2025-11-25 session to a server with one quick
// task-supporting tool.
func benchTaskSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
			return "hello " + in.Message, nil
		}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c, s := memory.NewPair()
	ss, err := srv.Connect(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: protocol.Version20251125}).Connect(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Close()
		_ = srv.ShutdownTasks(ctx)
	})
	return cs
}

// BenchmarkTaskGet measures one tasks/get round trip (client and server, in
// memory) on a finished task: the polling path.
func BenchmarkTaskGet(b *testing.B) {
	cs := benchTaskSession(b)
	ctx := context.Background()
	task, err := cs.CallToolAsTask(ctx, "echo", echoIn{Message: "x"}, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cs.AwaitTask(ctx, task.TaskID); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if t, err := cs.GetTask(ctx, task.TaskID); err != nil || t.Status != protocol.TaskStatusCompleted {
			b.Fatal(t, err)
		}
	}
}

// BenchmarkTaskLifecycle measures a whole task: tools/call as a task (the task
// created, its goroutine started), then tasks/result once it is done.
func BenchmarkTaskLifecycle(b *testing.B) {
	cs := benchTaskSession(b)
	ctx := context.Background()
	args := json.RawMessage(`{"message":"x"}`)
	b.ReportAllocs()
	for b.Loop() {
		task, err := cs.CallToolAsTask(ctx, "echo", args, 0)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cs.AwaitTask(ctx, task.TaskID)
		if err != nil || res.Content[0].Text != "hello x" {
			b.Fatal(res, err)
		}
	}
}
