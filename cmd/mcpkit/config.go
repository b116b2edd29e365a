package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/upstream"
)

const configExample = `  # the MCP servers of Claude Desktop, VS Code, Cursor and Windsurf on this machine, as one file
  mcpkit config import
  # check a configuration file: every mistake, with its file, server and field
  mcpkit config check mcp.json
  # install a server described by an MCP Registry server.json into a gateway's file
  mcpkit config add --server-json server.json --host gateway.json`

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Gather, check and add to MCP server configuration files",
		Example: configExample,
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(newConfigAddCmd(), &cobra.Command{
		Use:   "import",
		Short: "Print the MCP servers configured in the hosts installed here, as one file",
		Long: `Read the MCP server configuration of the hosts installed for this user and print it
as one {"mcpServers": {...}} file for "mcpkit gateway --config" (or any host):

  Claude Desktop   claude_desktop_config.json in its application-data directory
  VS Code          User/mcp.json, and "mcp" in User/settings.json (also VS Code Insiders)
  Cursor           ~/.cursor/mcp.json
  Windsurf         ~/.codeium/windsurf/mcp_config.json

Entries are copied as they are written (variables such as ${env:TOKEN} are left
for the gateway to substitute). A name two hosts use for different servers is kept
for the first and gets the second host's name as a suffix. What was read is said
on stderr.`,
		Example: "  mcpkit config import > mcp.json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return importConfigs(cmd.OutOrStdout(), cmd.ErrOrStderr(), upstream.HostFiles(runtime.GOOS, os.Getenv))
		},
	}, &cobra.Command{
		Use:     "check FILE",
		Short:   "Check a configuration file and list its servers",
		Example: "  mcpkit config check mcp.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := upstream.Load(args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, name := range cfg.Names() {
				s := cfg.Servers[name]
				what := s.URL
				if s.Transport == upstream.TransportStdio {
					what = strings.Join(append([]string{s.Command}, s.Args...), " ")
				}
				state := ""
				if s.Disabled {
					state = " (disabled)"
				}
				fmt.Fprintf(w, "%s\t%s\t%s%s\n", name, s.Transport, what, state)
			}
			return nil
		},
	})
	return cmd
}

// importConfigs prints the servers of the hosts' files as one configuration,
// saying on stderr what was read.
func importConfigs(stdout, stderr io.Writer, files []upstream.HostFile) error {
	merged := upstream.Merge(files, func(f upstream.HostFile, n int, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "mcpkit: %s: %v\n", f.Host, err)
			return
		}
		fmt.Fprintf(stderr, "mcpkit: %s: %d server(s) from %s\n", f.Host, n, f.Path)
	})
	_, err := stdout.Write(merged)
	return err
}
