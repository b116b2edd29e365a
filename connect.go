package mcpkit

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
)

// ConnectCommand starts the server command name with args as a subprocess and
// connects c to it over its standard input and output; closing the session
// stops the server. The server's standard error is logged to slog.Default()
// at debug level (transport/stdio.NewCommandConn does more).
func ConnectCommand(ctx context.Context, c *mcp.Client, name string, args ...string) (*mcp.ClientSession, error) {
	conn, err := Dial(ctx, Target{Command: append([]string{name}, args...)}, nil)
	if err != nil {
		return nil, err
	}
	return connect(ctx, c, conn)
}

// ConnectOptions configures ConnectURL. The zero value (and nil) is usable.
type ConnectOptions struct {
	// Header is added to every HTTP request, for example an Authorization
	// header.
	Header http.Header

	// HTTPClient sends every request. Nil means each transport's default:
	// over Streamable HTTP, its own HTTP/1.1 transport for a plain http:// URL
	// without a proxy, else http.DefaultClient (see
	// streamable.ClientOptions.HTTPClient). Its Timeout, if any, must allow for
	// SSE streams that stay open as long as a tool runs.
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
	var o ConnectOptions
	if opts != nil {
		o = *opts
	}
	t := Target{URL: url, Header: o.Header}
	if o.NoFallback {
		t.Transport = TransportHTTP
	}
	conn, err := Dial(ctx, t, &DialOptions{HTTPClient: o.HTTPClient, Logger: o.Logger, OnSessionExpired: o.OnSessionExpired, MaxMessageSize: o.MaxMessageSize})
	if err != nil {
		return nil, err
	}
	return connect(ctx, c, conn)
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
