package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// globalFlags are the flags every command shares.
type globalFlags struct {
	json    bool
	timeout time.Duration
	verbose bool
}

// splitTarget separates a command's own arguments from the target after "--".
func splitTarget(cmd *cobra.Command, args []string) (own, target []string, err error) {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		return nil, nil, fmt.Errorf("no target server: put the command to run after --, e.g. %s -- mcpkit serve", cmd.CommandPath())
	}
	own, target = args[:dash], args[dash:]
	if len(target) == 0 {
		return nil, nil, errors.New("no target server: nothing follows --")
	}
	return own, target, nil
}

// connect starts the target and initializes a client session with it.
func connect(ctx context.Context, g *globalFlags, target []string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if g.verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	copts := &stdio.CommandOptions{Logger: logger}
	if g.verbose {
		copts.Stderr = func(line string) { fmt.Fprintln(os.Stderr, "server:", line) }
	} else {
		copts.Stderr = func(string) {} // kept by the transport for error reports only
	}
	conn, err := stdio.NewCommandConn(ctx, exec.Command(target[0], target[1:]...), copts)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", target[0], err)
	}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.Logger = logger
	opts.RequestTimeout = g.timeout
	client := mcp.NewClient(protocol.Implementation{Name: "mcpkit", Version: version}, opts)
	cs, err := client.Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return cs, nil
}

// version is mcpkit's version, as the CLI reports it to servers.
const version = "0.1.0"
