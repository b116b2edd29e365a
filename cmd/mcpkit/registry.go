package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/modfile"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/registry"
	"github.com/mcpkit/mcpkit/upstream"
)

func newRegistryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Write and check server.json, the MCP Registry's description of a server",
		Example: `  # the server.json of the Go server in this directory (its go.mod), version v1.0.0, on stdout
  mcpkit registry init --version v1.0.0 --description 'Weather forecasts' --out -
  mcpkit registry validate server.json`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newRegistryInitCmd(), &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a server.json (or a saved registry entry) against the official schema",
		Long: `Check a server.json, or one entry of the registry's API saved to disk, against the
official schema (` + registry.SchemaURL + `,
embedded) and list its packages and remotes. Every violation is listed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			e, err := registry.Parse(data)
			if err != nil {
				return escapeError(fmt.Errorf("%s: %w", args[0], err))
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s %s: valid\n", term.Escape(e.Server.Name), term.Escape(e.Server.Version))
			fmt.Fprintln(w, offers(&e.Server))
			return nil
		},
	})
	return cmd
}

func newRegistryInitCmd() *cobra.Command {
	var g registry.GoServer
	var dir, out string
	var env, secrets []string
	var force bool
	cmd := &cobra.Command{
		Use:   "init --version vX.Y.Z --description TEXT [--module PATH] [--name NAME] [--env NAME[=DESCRIPTION]]... [--secret NAME[=DESCRIPTION]]...",
		Short: "Write the server.json of a Go MCP server published as a module",
		Long: `Write the server.json of a Go MCP server that users run with "go run MODULE@VERSION"
(registryType "go"): the module path comes from go.mod (--dir, default the current
directory) unless --module is given; the server's name defaults to
io.github.OWNER/REPO for a module github.com/OWNER/REPO, as the registry requires.
--env and --secret declare the environment variables the server needs (required;
--secret ones are marked secret). The file is checked against the official schema
before it is written (--out, default server.json; - for standard output); an
existing file is kept unless --force. Publish it with mcp-publisher.`,
		Example: `  mcpkit registry init --version v1.0.0 --description 'Weather forecasts' --secret WEATHER_API_KEY='the API key'`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.Module == "" {
				data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
				if err != nil {
					return fmt.Errorf("registry init: %w (give the module path with --module)", err)
				}
				if g.Module = modfile.ModulePath(data); g.Module == "" {
					return fmt.Errorf("registry init: %s has no module line", filepath.Join(dir, "go.mod"))
				}
			}
			for _, set := range []struct {
				list   []string
				secret bool
			}{{env, false}, {secrets, true}} {
				for _, v := range set.list {
					name, desc, _ := strings.Cut(v, "=")
					g.Env = append(g.Env, registry.KeyValue{Name: name, Input: registry.Input{Description: desc, IsRequired: true, IsSecret: set.secret}})
				}
			}
			s, err := registry.NewGoServer(g)
			if err != nil {
				return fmt.Errorf("registry init: %w", err)
			}
			data, err := s.Marshal()
			if err != nil {
				return fmt.Errorf("registry init: %w", err)
			}
			if out == "-" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if _, err := os.Lstat(out); err == nil && !force {
				return fmt.Errorf("registry init: %s exists; --force replaces it", out)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if err := upstream.WriteConfig(out, data); err != nil {
				return fmt.Errorf("registry init: %w", err)
			}
			if err := os.Chmod(out, 0o644); err != nil { // a public file, meant for the repository
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpkit: wrote %s: %s %s, go run %s@%s\n", out, s.Name, s.Version, g.Module, g.Version)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&g.Version, "version", "", "the module version to publish, such as v1.0.0 (required)")
	f.StringVar(&g.Description, "description", "", "what the server does, up to 100 characters (required)")
	f.StringVar(&g.Title, "title", "", "a display name")
	f.StringVar(&g.Module, "module", "", "the module path (default: go.mod's)")
	f.StringVar(&g.Name, "name", "", "the server's registry name (default: io.github.OWNER/REPO)")
	f.StringVar(&dir, "dir", ".", "the directory of go.mod")
	f.StringVar(&out, "out", "server.json", "where to write it; - for standard output")
	f.StringArrayVar(&env, "env", nil, "a required environment variable, NAME[=DESCRIPTION] (repeatable)")
	f.StringArrayVar(&secrets, "secret", nil, "a required secret environment variable, NAME[=DESCRIPTION] (repeatable)")
	f.BoolVar(&force, "force", false, "replace an existing file")
	_ = cmd.MarkFlagRequired("version")
	_ = cmd.MarkFlagRequired("description")
	return cmd
}
