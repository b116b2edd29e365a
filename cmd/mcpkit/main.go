// Command mcpkit serves, calls and inspects Model Context Protocol servers.
//
//	mcpkit serve                                   # the demo server on stdio
//	mcpkit tools -- npx -y @modelcontextprotocol/server-everything
//	mcpkit call echo '{"message":"hi"}' -- mcpkit serve
//
// A target server is given after "--" as a command to run (stdio), or with --url.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries an exit status; its message has already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "mcpkit:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpkit",
		Short:         "Serve, call and inspect Model Context Protocol servers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	g := &globalFlags{}
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print raw JSON results")
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", 0, "bound each request (e.g. 30s); 0 means no bound")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "show the target server's stderr and protocol diagnostics")
	root.PersistentFlags().StringVar(&g.url, "url", "", "the target server's URL (Streamable HTTP, falling back to HTTP+SSE), instead of a command after --")
	root.PersistentFlags().StringArrayVar(&g.headers, "header", nil, "an HTTP header for --url, as 'Name: value' (repeatable)")
	root.AddCommand(newServeCmd(g))
	root.AddCommand(newClientCmds(g)...)
	root.AddCommand(newTapCmd())
	return root
}
