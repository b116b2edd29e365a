package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// Server log messages (notifications/message) in the client commands: asked
// for with --log-level LEVEL, printed on stderr as they arrive, one line each,
// with the server's strings escaped for the terminal.

// validLogLevel checks a --log-level value before anything is started.
func validLogLevel(v string) error {
	if v == "" || protocol.LoggingLevel(v).Severity() >= 0 {
		return nil
	}
	return fmt.Errorf("--log-level %q: not a logging level (debug, info, notice, warning, error, critical, alert, emergency)", v)
}

// logLine renders a log message for a terminal: "server log LEVEL [LOGGER]: DATA".
func logLine(p *protocol.LoggingMessageParams) string {
	data, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		data = string(b)
	}
	var b strings.Builder
	b.WriteString("server log ")
	b.WriteString(capture.TermSafe(string(p.Level)))
	if p.Logger != "" {
		b.WriteString(" [" + capture.TermSafe(p.Logger) + "]")
	}
	b.WriteString(": ")
	b.WriteString(capture.TermSafe(data))
	return b.String()
}

// printLogs makes opts print the server's log messages on w.
func printLogs(opts *mcp.ClientOptions, w io.Writer) {
	opts.LoggingMessageHandler = func(_ context.Context, _ *mcp.ClientSession, p *protocol.LoggingMessageParams) {
		fmt.Fprintln(w, "mcpkit:", logLine(p))
	}
}

// askForLogs asks the server for its log messages at level ("" asks for none).
// A server without the logging capability is told nothing: the user is.
func askForLogs(ctx context.Context, cs *mcp.ClientSession, level string, w io.Writer) error {
	if level == "" {
		return nil
	}
	if cs.InitializeResult().Capabilities.Logging == nil {
		fmt.Fprintln(w, "mcpkit: --log-level: the server does not offer log messages (no logging capability)")
		return nil
	}
	if err := cs.SetLogLevel(ctx, protocol.LoggingLevel(level)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	return nil
}
