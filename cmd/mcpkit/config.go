package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/upstream"
)

const configExample = `  # the MCP servers of Claude Desktop, VS Code, Cursor and Windsurf on this machine, as one file
  mcpkit config import
  # check a configuration file: every mistake, with its file, server and field
  mcpkit config check mcp.json`

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Gather and check MCP server configuration files",
		Example: configExample,
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
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
			return importConfigs(cmd.OutOrStdout(), cmd.ErrOrStderr(), hostConfigFiles(runtime.GOOS, os.Getenv))
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

// hostFile is a configuration file a host may have.
type hostFile struct {
	host string // "Claude Desktop", "VS Code", ...
	tag  string // the suffix of a renamed server: "claude", "vscode", ...
	path string
}

// hostConfigFiles lists where the hosts keep their MCP configuration on goos,
// with env giving HOME, APPDATA and XDG_CONFIG_HOME.
func hostConfigFiles(goos string, env func(string) string) []hostFile {
	home := env("HOME")
	if goos == "windows" && env("USERPROFILE") != "" {
		home = env("USERPROFILE")
	}
	var appData string // where Electron apps keep their settings
	switch goos {
	case "darwin":
		appData = filepath.Join(home, "Library", "Application Support")
	case "windows":
		appData = env("APPDATA")
		if appData == "" {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
	default:
		appData = env("XDG_CONFIG_HOME")
		if appData == "" {
			appData = filepath.Join(home, ".config")
		}
	}
	files := []hostFile{{"Claude Desktop", "claude", filepath.Join(appData, "Claude", "claude_desktop_config.json")}}
	for _, code := range []struct{ dir, host, tag string }{{"Code", "VS Code", "vscode"}, {"Code - Insiders", "VS Code Insiders", "vscode-insiders"}} {
		user := filepath.Join(appData, code.dir, "User")
		files = append(files,
			hostFile{code.host, code.tag, filepath.Join(user, "mcp.json")},
			hostFile{code.host, code.tag, filepath.Join(user, "settings.json")})
	}
	return append(files,
		hostFile{"Cursor", "cursor", filepath.Join(home, ".cursor", "mcp.json")},
		hostFile{"Windsurf", "windsurf", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")})
}

// importConfigs reads the hosts' files and prints their servers as one
// configuration.
func importConfigs(stdout, stderr io.Writer, files []hostFile) error {
	merged := map[string]json.RawMessage{}
	var order []string
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcpkit: %s: %v\n", f.host, err)
			continue
		}
		entries, err := upstream.ServerEntries(f.path, data)
		if err != nil {
			if filepath.Base(f.path) != "settings.json" { // most settings files have no servers
				fmt.Fprintf(stderr, "mcpkit: %s: %v\n", f.host, err)
			}
			continue
		}
		names := make([]string, 0, len(entries))
		for n := range entries {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			raw := compactJSON(entries[n])
			name := n
			if prev, ok := merged[name]; ok && !bytes.Equal(prev, raw) {
				name = n + "-" + f.tag
			}
			if _, ok := merged[name]; !ok {
				order = append(order, name)
			}
			merged[name] = raw
		}
		fmt.Fprintf(stderr, "mcpkit: %s: %d server(s) from %s\n", f.host, len(names), f.path)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"mcpServers\": {")
	slices.Sort(order)
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		var entry bytes.Buffer
		_ = json.Indent(&entry, merged[name], "    ", "  ")
		fmt.Fprintf(&b, "\n    %s: %s", key, entry.Bytes())
	}
	if len(order) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	_, err := stdout.Write(b.Bytes())
	return err
}

// compactJSON returns raw without insignificant white space.
func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
