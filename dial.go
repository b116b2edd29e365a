package mcpkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"time"

	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// How a Target with a URL is spoken to (Target.Transport).
const (
	// TransportAuto speaks Streamable HTTP, falling back to the older HTTP+SSE
	// transport (2024-11-05) on the same URL when the server answers the first
	// initialize with 400, 404 or 405, as a server of that version does.
	TransportAuto = ""
	// TransportHTTP speaks Streamable HTTP only.
	TransportHTTP = "http"
	// TransportSSE speaks the HTTP+SSE transport only.
	TransportSSE = "sse"
)

// Target is an MCP server to reach: a command to start (stdio) or a URL. Give
// Command or URL, not both.
type Target struct {
	// Command is the server's program and its arguments, started as a
	// subprocess that speaks over its standard input and output.
	Command []string
	// Env is added to this process's environment for the command.
	Env map[string]string
	// Dir is the command's working directory ("" for this process's).
	Dir string

	// URL is the server's HTTP endpoint.
	URL string
	// Header is added to every HTTP request, for example an Authorization
	// header.
	Header http.Header
	// Transport chooses the HTTP transport: TransportAuto (""),
	// TransportHTTP or TransportSSE.
	Transport string
}

// DialOptions configures Dial. The zero value (and nil) is usable.
type DialOptions struct {
	// HTTPClient sends the requests to a URL. Nil means each transport's
	// default: over Streamable HTTP, its own HTTP/1.1 transport for a plain
	// http:// URL without a proxy, else http.DefaultClient (see
	// streamable.ClientOptions.HTTPClient); pass http.DefaultClient to use
	// net/http for every request. Its Timeout, if any, must allow for SSE
	// streams that stay open as long as a tool runs.
	HTTPClient *http.Client

	// Logger receives the transports' diagnostics. Nil means slog.Default().
	Logger *slog.Logger

	// Stderr receives each line a command writes to its standard error (see
	// stdio.CommandOptions.Stderr). Nil means logging them to Logger at debug
	// level.
	Stderr func(line string)

	// StopTimeout is how long a command is given to exit once its standard
	// input is closed, and again after SIGTERM, before it is killed. Zero means
	// the stdio package's defaults.
	StopTimeout time.Duration

	// OnSessionExpired is called when a Streamable HTTP server forgot the
	// session and the client started a new one (see
	// streamable.ClientOptions.OnSessionExpired).
	OnSessionExpired func(oldSessionID, newSessionID string, err error)

	// MaxMessageSize bounds one message from the server, in bytes, on every
	// transport: a larger one is dropped and the request it answers fails
	// saying so. Zero means transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int
}

// Dial opens the transport to the server t names: it starts t.Command, or
// connects to t.URL by the transport t.Transport chooses. The connection is
// ready for mcp.Client.Connect; closing it stops a command. A connection to a
// command also has a Pid() int method.
func Dial(ctx context.Context, t Target, opts *DialOptions) (transport.Conn, error) {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case len(t.Command) > 0 && t.URL != "":
		return nil, errors.New("mcpkit: a target is a command or a URL, not both")
	case len(t.Command) > 0:
		return dialCommand(ctx, t, &o)
	case t.URL != "":
		return dialURL(ctx, t, &o)
	}
	return nil, errors.New("mcpkit: the target has neither a command nor a URL")
}

// dialCommand starts the target's command.
func dialCommand(ctx context.Context, t Target, o *DialOptions) (transport.Conn, error) {
	cmd := exec.Command(t.Command[0], t.Command[1:]...)
	cmd.Dir = t.Dir
	if len(t.Env) > 0 {
		cmd.Env = os.Environ()
		keys := make([]string, 0, len(t.Env))
		for k := range t.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cmd.Env = append(cmd.Env, k+"="+t.Env[k])
		}
	}
	conn, err := stdio.NewCommandConn(ctx, cmd, &stdio.CommandOptions{
		Stderr: o.Stderr, Logger: o.Logger, MaxMessageSize: o.MaxMessageSize,
		CloseTimeout: o.StopTimeout, TermTimeout: o.StopTimeout,
	})
	if err != nil {
		return nil, err // it says "stdio: starting NAME: ..."
	}
	return conn, nil
}

// dialURL connects to the target's URL.
func dialURL(ctx context.Context, t Target, o *DialOptions) (transport.Conn, error) {
	sse := func(ctx context.Context) (transport.Conn, error) {
		c, err := legacysse.NewClientConn(ctx, t.URL, &legacysse.ClientOptions{HTTPClient: o.HTTPClient, Header: t.Header, Logger: o.Logger, MaxMessageSize: o.MaxMessageSize})
		if err != nil {
			return nil, err // not a nil *ClientConn in an interface
		}
		return c, nil
	}
	var conn transport.Conn
	var err error
	switch t.Transport {
	case TransportSSE:
		conn, err = sse(ctx)
	case TransportAuto, TransportHTTP:
		copts := &streamable.ClientOptions{
			HTTPClient:       o.HTTPClient,
			Header:           t.Header,
			Logger:           o.Logger,
			OnSessionExpired: o.OnSessionExpired,
			MaxMessageSize:   o.MaxMessageSize,
		}
		if t.Transport == TransportAuto {
			copts.Fallback = sse
		}
		conn, err = streamable.NewClientConn(ctx, t.URL, copts)
	default:
		return nil, fmt.Errorf("mcpkit: unknown transport %q (want %q, %q or %q)", t.Transport, TransportAuto, TransportHTTP, TransportSSE)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", t.URL, err)
	}
	return conn, nil
}
