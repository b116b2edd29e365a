// Command srv-mcpgo serves the benchmark's echo tool with mark3labs/mcp-go, over
// Streamable HTTP (stateful or sessionless) or stdio, with the library's defaults
// (which do not validate tool arguments against the input schema). See package
// serverkit for its flags.
package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
)

// EchoInput is the echo tool's input.
type EchoInput struct {
	Message string `json:"message"`
}

// echo is the typed tool handler.
func echo(ctx context.Context, req mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("hello " + in.Message), nil
}

// newServer returns an mcp-go server with the echo tool.
func newServer() *server.MCPServer {
	s := server.NewMCPServer("bench-mcpgo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echoes the message back."),
		mcp.WithString("message", mcp.Required(), mcp.Description("the text to echo back")),
	), mcp.NewTypedToolHandler(echo))
	return s
}

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	serverkit.Main(serverkit.Impl{
		Name: "srv-mcpgo",
		HTTP: func(sessionless bool) (http.Handler, error) {
			opts := []server.StreamableHTTPOption{server.WithStreamableHTTPLogger(logger)}
			if sessionless {
				opts = append(opts, server.WithStateLess(true))
			} else {
				// Sessions that the server tracks and checks (the default only
				// generates ids and accepts any).
				opts = append(opts, server.WithStateful(true))
			}
			return server.NewStreamableHTTPServer(newServer(), opts...), nil
		},
		Stdio: func(ctx context.Context, in io.Reader, out io.Writer) error {
			return server.NewStdioServer(newServer()).Listen(ctx, in, out)
		},
	})
}
