// Command middleware is a server with two pieces of middleware: one logs
// every call it receives or sends with its duration (log/slog, to standard
// error), the other refuses calls of tools named on the command line.
//
//	go run ./examples/middleware                          # serve on stdio, refusing delete_all
//	go run ./examples/middleware -deny echo,delete_all    # refuse others
//	go run ./examples/middleware -demo                    # call the tools in-process and print what happens
//
// Middleware wraps every method a server (or client) handles: it sees the
// call — method, raw params, direction, session — and calls next to go on, or
// returns without calling it to refuse. mcpkit's own OpenTelemetry tracing
// (package otelmcp) is middleware too.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// logCalls logs each call when it ends: its method, the tool it names, how it
// went and how long it took.
func logCalls(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			start := time.Now()
			result, err := next(ctx, call)
			attrs := []any{"method", call.Method, "direction", call.Direction, "duration", time.Since(start)}
			if tool := toolName(call); tool != "" {
				attrs = append(attrs, "tool", tool)
			}
			if res, ok := result.(*mcp.CallToolResult); ok && res.IsError {
				attrs = append(attrs, "isError", true) // the tool ran and reported a failure
			}
			if err != nil {
				logger.WarnContext(ctx, "call failed", append(attrs, "error", err)...)
			} else {
				logger.InfoContext(ctx, "call", attrs...)
			}
			return result, err
		}
	}
}

// denyTools refuses calls of the named tools with the JSON-RPC error a
// client gets for an unknown tool's invalid params (-32602); the handler
// never runs. (To hide a tool from everyone, Server.RemoveTools is simpler;
// middleware suits rules that depend on the call, such as who is calling:
// transport.PrincipalFrom(ctx).)
func denyTools(names ...string) mcp.Middleware {
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			if call.Direction == mcp.Incoming {
				if tool := toolName(call); tool != "" && slices.Contains(names, tool) {
					return nil, jsonrpc.NewError(mcp.CodeInvalidParams, "tool %q is disabled on this server", tool)
				}
			}
			return next(ctx, call)
		}
	}
}

// toolName returns the tool a tools/call names, or "".
func toolName(call *mcp.Call) string {
	if call.Method != "tools/call" {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(call.Params, &p) // malformed params: the server answers them itself
	return p.Name
}

// EchoInput is the input of the echo tool.
type EchoInput struct {
	Text string `json:"text" jsonschema:"What to say back."`
}

// newServer returns the server, its middleware installed in order: the
// first is outermost, so the log sees refused calls too.
func newServer(logger *slog.Logger, deny []string) (*mcp.Server, error) {
	srv := mcp.NewServer(mcp.Implementation{Name: "middleware-example", Version: "1.0.0"}, &mcp.ServerOptions{
		Middleware: []mcp.Middleware{logCalls(logger), denyTools(deny...)},
		Logger:     logger,
	})
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Says the text back"},
		func(ctx context.Context, req *mcp.ToolRequest, in EchoInput) (string, error) {
			return in.Text, nil
		})
	if err != nil {
		return nil, err
	}
	err = mcp.AddTool(srv, &mcp.Tool{Name: "delete_all", Description: "Deletes everything (a tool to keep away from models)"},
		func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
			return "everything is gone", nil
		})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

func main() {
	deny := flag.String("deny", "delete_all", "comma-separated names of the tools to refuse")
	demo := flag.Bool("demo", false, "call the tools with an in-process client, print the results and exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	// Standard error: on stdio, standard output carries the protocol.
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := newServer(logger, strings.Split(*deny, ","))
	if err != nil {
		log.Fatal(err)
	}
	if *demo {
		err = runDemo(ctx, srv)
	} else {
		err = mcpkit.ServeStdio(ctx, srv)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// runDemo connects an in-process client and calls each tool.
func runDemo(ctx context.Context, srv *mcp.Server) error {
	clientEnd, serverEnd := memory.NewPair()
	if _, err := srv.Connect(ctx, serverEnd); err != nil {
		return err
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "middleware-demo", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		return err
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, "echo", EchoInput{Text: "hello"})
	if err != nil {
		return err
	}
	fmt.Println("echo:", res.Content[0].Text)

	// Invalid arguments: the tool answers with isError, which the log shows.
	res, err = cs.CallTool(ctx, "echo", nil)
	if err != nil {
		return err
	}
	fmt.Println("echo without text: isError", res.IsError)

	// The refusal is an error of the call, not a tool result: the handler
	// never ran.
	_, err = cs.CallTool(ctx, "delete_all", nil)
	fmt.Println("delete_all refused:", err)
	return nil
}
