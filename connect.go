package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// ServeStdio serves srv on standard input and output (one session, with the
// client that started this process) until the client goes away or ctx ends;
// either way it returns nil. Standard output then carries protocol messages
// only: log to standard error.
func ServeStdio(ctx context.Context, srv *mcp.Server) error {
	err := srv.Run(ctx, stdio.NewProcessServerConn(nil))
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

// ConnectCommand starts the server command name with args as a subprocess and
// connects c to it over its standard input and output; closing the session
// stops the server. The server's standard error is logged to slog.Default()
// at debug level (transport/stdio.NewCommandConn does more).
func ConnectCommand(ctx context.Context, c *mcp.Client, name string, args ...string) (*mcp.ClientSession, error) {
	conn, err := stdio.NewCommandConn(ctx, exec.Command(name, args...), nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return connect(ctx, c, conn)
}

// ConnectOptions configures ConnectURL. The zero value (and nil) is usable.
type ConnectOptions struct {
	// Header is added to every HTTP request, for example an Authorization
	// header.
	Header http.Header

	// HTTPClient sends every request. Nil means http.DefaultClient. Its
	// Timeout, if any, must allow for SSE streams that stay open as long as a
	// tool runs.
	HTTPClient *http.Client

	// Logger receives the transports' diagnostics. Nil means slog.Default().
	Logger *slog.Logger

	// OnSessionExpired is called when the server forgot the session and the
	// client started a new one (see streamable.ClientOptions.OnSessionExpired).
	OnSessionExpired func(oldSessionID, newSessionID string, err error)

	// MaxMessageSize bounds one message from the server, in bytes: a larger
	// one is dropped and the request it answers fails saying so. Zero means
	// transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int

	// NoFallback speaks Streamable HTTP only: without it, a server that
	// answers the first initialize with 400, 404 or 405 (as a 2024-11-05
	// server does) is spoken to with the HTTP+SSE transport on the same URL.
	NoFallback bool
}

// ConnectURL connects c to the MCP server at url: by Streamable HTTP, falling
// back to the older HTTP+SSE transport (2024-11-05) when the server turns out
// to speak only that. The session is in the era the server speaks: stateless
// 2026-07-28 if it does, a legacy session otherwise (see mcp.Client.Connect).
func ConnectURL(ctx context.Context, c *mcp.Client, url string, opts *ConnectOptions) (*mcp.ClientSession, error) {
	conn, err := dialURL(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	return connect(ctx, c, conn)
}

// dialURL returns the transport ConnectURL connects on.
func dialURL(ctx context.Context, url string, opts *ConnectOptions) (transport.Conn, error) {
	var o ConnectOptions
	if opts != nil {
		o = *opts
	}
	copts := &streamable.ClientOptions{
		HTTPClient:       o.HTTPClient,
		Header:           o.Header,
		Logger:           o.Logger,
		OnSessionExpired: o.OnSessionExpired,
		MaxMessageSize:   o.MaxMessageSize,
	}
	if !o.NoFallback {
		copts.Fallback = func(ctx context.Context) (transport.Conn, error) {
			return legacysse.Dial(ctx, url, &legacysse.ClientOptions{HTTPClient: o.HTTPClient, Header: o.Header, Logger: o.Logger, MaxMessageSize: o.MaxMessageSize})
		}
	}
	conn, err := streamable.NewClientConn(ctx, url, copts)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", url, err)
	}
	return conn, nil
}

// connect opens c's session on conn, closing conn if that fails.
func connect(ctx context.Context, c *mcp.Client, conn transport.Conn) (*mcp.ClientSession, error) {
	cs, err := c.Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return cs, nil
}
