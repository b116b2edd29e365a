// Command srv-gosdk serves the benchmark's echo tool with the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk), over Streamable HTTP (stateful or
// sessionless) or stdio, with the SDK's defaults. See package serverkit for its flags.
package main

import (
	"context"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
)

// EchoInput is the echo tool's input.
type EchoInput struct {
	Message string `json:"message" jsonschema:"the text to echo back"`
}

// echo is the typed tool handler: no structured output (Out is any).
func echo(ctx context.Context, req *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Message}}}, nil, nil
}

// newServer returns a go-sdk server with the echo tool.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-gosdk", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the message back."}, echo)
	return s
}

func main() {
	serverkit.Main(serverkit.Impl{
		Name: "srv-gosdk",
		HTTP: func(sessionless bool) (http.Handler, error) {
			s := newServer()
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{Stateless: sessionless}), nil
		},
		Stdio: func(ctx context.Context, in io.Reader, out io.Writer) error {
			// The SDK's stdio transport is bound to the process's own standard input
			// and output, which is what serverkit passes as in and out.
			return newServer().Run(ctx, &mcp.StdioTransport{})
		},
	})
}
