package main

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/demo"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

func newServeCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the demo server (every MCP feature) over stdio",
		Long: `Serve mcpkit's demo server on standard input and output.

It offers the tools echo, count (progress), test_throw (a failing tool), echo_ip,
add (structured output), log, sample (sampling), ask_name (elicitation),
list_roots (roots) and touch (resource updates); the resources demo://readme,
demo://logo.png and the template demo://items/{id}; and the prompts greet and
describe_logo, with completions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			if g.verbose {
				level = slog.LevelDebug
			}
			// stdout carries only protocol messages: diagnostics go to stderr.
			logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			srv, err := demo.NewServer(&demo.Options{Logger: logger})
			if err != nil {
				return err
			}
			err = srv.Run(cmd.Context(), stdio.NewProcessServerConn(nil))
			if errors.Is(err, context.Canceled) {
				return nil // interrupted: a normal way to stop a server
			}
			return err
		},
	}
}
