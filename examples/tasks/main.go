// Command tasks is a server whose slow tool runs as a task, and (with -demo) a
// client that starts the tool as a task, polls its status, fetches its result,
// and cancels a second one.
//
//	go run ./examples/tasks         # serve on stdio
//	go run ./examples/tasks -demo   # serve over HTTP on 127.0.0.1 and run the client against it
//
// A task is a tool call answered at once with a task id, which the client
// follows (tasks/get) until the call is done, then fetches the result
// (tasks/result); it can cancel it (tasks/cancel). A client that cannot take
// tasks calls the same tool as usual and simply waits.
//
// Experimental: tasks are experimental in protocol 2025-11-25 (and an
// extension, io.modelcontextprotocol/tasks, in 2026-07-28), and mcpkit's
// tasks API may change with them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// ReportInput is the input of the report tool.
type ReportInput struct {
	Topic string `json:"topic" jsonschema:"What the report is about."`
	Steps int    `json:"steps" jsonschema:"minimum=1,maximum=50,description=How many steps of work (each about 100 ms)"`
}

// newServer returns a server with tasks enabled and one tool that supports them.
func newServer() (*mcp.Server, error) {
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks-example", Version: "1.0.0"}, &mcp.ServerOptions{
		// Tasks live in a taskstore.Store: in memory here; replicas behind a
		// load balancer share one (store/redisstore).
		Tasks: &mcp.TaskOptions{PollInterval: 100 * time.Millisecond, DefaultTTL: 10 * time.Minute},
	})
	tool := &mcp.Tool{
		Name:        "report",
		Description: "Writes a report; slow, so it can run as a task",
		// Optional: a client may ask for a task or call it as usual.
		// (TaskSupportRequired would refuse plain calls.)
		Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional},
	}
	err := mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.ToolRequest, in ReportInput) (string, error) {
		// In a task this runs in the background. Its context ends when the
		// task is cancelled (or the server shuts down): long work must watch it.
		for range in.Steps {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(100 * time.Millisecond): // stands in for real work
			}
		}
		return fmt.Sprintf("report on %s: done in %d steps", in.Topic, in.Steps), nil
	})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

func main() {
	demo := flag.Bool("demo", false, "serve over HTTP on 127.0.0.1, run a client against it, then exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if !*demo {
		if err := mcpkit.ServeStdio(ctx, srv); err != nil {
			log.Fatal(err)
		}
		return
	}

	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(serveCtx, ln, srv, nil) }()

	err = runClient(ctx, "http://"+ln.Addr().String()+"/mcp")
	stopServing() // Serve shuts down gracefully, stopping any task still running
	if err = errors.Join(err, <-served); err != nil {
		log.Fatal(err)
	}
}

// runClient starts the report tool as a task, follows it, and cancels a
// second one.
func runClient(ctx context.Context, url string) error {
	// Asking for a task is done in protocol 2025-11-25, so this client
	// speaks it. (In 2026-07-28 the server decides which calls become tasks,
	// for clients that declare the tasks extension.)
	client := mcp.NewClient(mcp.Implementation{Name: "tasks-demo", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: protocol.Version20251125})
	cs, err := mcpkit.ConnectURL(ctx, client, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	// The call returns at once with the task; ttl 0 lets the server choose
	// how long it keeps the task (TaskOptions.DefaultTTL).
	task, err := cs.CallToolAsTask(ctx, "report", ReportInput{Topic: "tides", Steps: 5}, 0)
	if err != nil {
		return err
	}
	fmt.Println("task created:", task.Status)

	// Poll tasks/get at the interval the server suggests until the task
	// leaves "working". (AwaitTask below would do this wait for us.)
	interval := time.Second
	if task.PollInterval != nil {
		interval = time.Duration(*task.PollInterval) * time.Millisecond
	}
	polls := 0
	for {
		t, err := cs.GetTask(ctx, task.TaskID)
		if err != nil {
			return err
		}
		polls++
		if t.Status != protocol.TaskStatusWorking {
			fmt.Printf("task %s (tasks/get asked %d times)\n", t.Status, polls)
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}

	// The result is fetched with tasks/result.
	res, err := cs.AwaitTask(ctx, task.TaskID)
	if err != nil {
		return err
	}
	fmt.Println("result:", res.Content[0].Text)

	// A second task, cancelled while it works: it ends without a result.
	task, err = cs.CallToolAsTask(ctx, "report", ReportInput{Topic: "comets", Steps: 50}, 0)
	if err != nil {
		return err
	}
	if err := cs.CancelTask(ctx, task.TaskID); err != nil {
		return err
	}
	_, err = cs.AwaitTask(ctx, task.TaskID)
	fmt.Println("second task cancelled:", errors.Is(err, mcp.ErrTaskCancelled))
	return nil
}
