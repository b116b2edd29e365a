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
	bv := readBuildVersion()
	root := &cobra.Command{
		Use:   "mcpkit",
		Short: "Serve, call and inspect Model Context Protocol servers",
		Long: `mcpkit serves, calls and inspects Model Context Protocol servers.

The client commands (tools, resources, prompts, ping, read, get, call) take the server
to talk to as a command to run after "--" (stdio), or as --url (Streamable HTTP, falling
back to HTTP+SSE). They answer what the server asks of them: elicitation (a prompt on
the terminal, or --elicit-answers), roots (--root) and sampling (refused: no model is
configured). A --url server that asks for OAuth authorization gets it: the token stored
by an earlier run or by "mcpkit auth login", refreshed when it has expired, else the
browser flow (or --oauth-client-credentials for machines); tokens are kept under the
user's configuration directory. Shell completion: see "mcpkit completion --help".`,
		Example: `  mcpkit call echo '{"message":"hi"}' -- mcpkit serve
  mcpkit tools -- mcpkit serve
  mcpkit --version`,
		Version:       bv.module,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version prints what `mcpkit version` prints (a module version is semver:
	// it holds no template braces).
	root.SetVersionTemplate(bv.String())
	g := &globalFlags{}
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "show the target server's stderr and protocol diagnostics")
	serve := newServeCmd(g)
	serve.Example = serveExample
	root.AddGroup(
		&cobra.Group{ID: groupTalk, Title: "Talk to a server:"},
		&cobra.Group{ID: groupRun, Title: "Run:"},
		&cobra.Group{ID: groupInspect, Title: "Inspect:"},
		&cobra.Group{ID: groupSetUp, Title: "Set up:"})
	inGroup(root, groupTalk, append(newClientCmds(g), newShellCmd(g), newTokensCmd(g), newSkillsCmd(g))...)
	inGroup(root, groupRun, serve, newGatewayCmd(g), newHostCmd(g))
	inGroup(root, groupInspect, newTapCmd())
	inGroup(root, groupSetUp, newAuthCmd(), newConfigCmd(), newRegistryCmd(), newVersionCmd())
	root.SetHelpCommandGroupID(groupSetUp)
	root.SetCompletionCommandGroupID(groupSetUp)
	return root
}

// The groups of `mcpkit --help`.
const (
	groupTalk    = "talk"
	groupRun     = "run"
	groupInspect = "inspect"
	groupSetUp   = "setup"
)

// inGroup adds cmds to root in the group id.
func inGroup(root *cobra.Command, id string, cmds ...*cobra.Command) {
	for _, c := range cmds {
		c.GroupID = id
	}
	root.AddCommand(cmds...)
}

// serveExample is the Example section of `mcpkit serve --help`.
const serveExample = `  # the demo server on stdio, as an MCP client starts it
  mcpkit serve
  # over HTTP: Streamable HTTP at http://127.0.0.1:8080/mcp, HTTP+SSE at /sse
  mcpkit serve --http 127.0.0.1:8080
  # Streamable HTTP without sessions: every POST stands alone
  mcpkit serve --http :8080 --sessionless`
