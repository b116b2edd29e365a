// Command srv-mcpkit serves the benchmark's echo tool with mcpkit, over Streamable
// HTTP (stateful or sessionless) or stdio. See package serverkit for its flags.
package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/mcpkit/mcpkit/bench/internal/load"
	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// EchoInput is the echo tool's input.
type EchoInput struct {
	Message string `json:"message" description:"the text to echo back"`
}

// newServer returns an mcpkit server with the echo tool, schema validation on (the
// default), logging warnings and errors to standard error.
func newServer(logger *slog.Logger) (*mcp.Server, error) {
	s := mcp.NewServer(protocol.Implementation{Name: "bench-mcpkit", Version: "1.0.0"}, &mcp.ServerOptions{Logger: logger})
	err := mcp.AddTool(s, &protocol.Tool{Name: "echo", Description: "Echoes the message back."},
		func(ctx context.Context, req *mcp.ToolRequest, in EchoInput) (string, error) {
			return "hello " + in.Message, nil
		})
	return s, err
}

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	serverkit.Main(serverkit.Impl{
		Name: "srv-mcpkit",
		HTTP: func(sessionless bool) (http.Handler, error) {
			s, err := newServer(logger)
			if err != nil {
				return nil, err
			}
			// The load generator is one client address opening thousands of
			// sessions (mode idle-sessions): no per-client share.
			limits := &transport.Limits{MaxSessionsPerClient: -1}
			opts := &streamable.HandlerOptions{Sessionless: sessionless, Logger: logger, Limits: limits}
			if url := os.Getenv(load.RedisURLEnv); url != "" {
				// Mode redis: sessions and events on Redis, as mcpkit serve --redis does.
				c, err := redisstore.Open(context.Background(), url, nil)
				if err != nil {
					return nil, err
				}
				opts.Sessions = redisstore.NewSessionStore(c)
				opts.EventStore = redisstore.NewEventStore(c, nil)
				if os.Getenv(load.StrictEnv) == "1" {
					opts.SessionCheckInterval = -1 // one GETEX per request
				}
			}
			return streamable.NewHandler(s, opts), nil
		},
		Stdio: func(ctx context.Context, in io.Reader, out io.Writer) error {
			s, err := newServer(logger)
			if err != nil {
				return err
			}
			return s.Run(ctx, stdio.NewServerConn(in, out, nil))
		},
	})
}
