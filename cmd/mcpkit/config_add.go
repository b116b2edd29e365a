package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	xterm "golang.org/x/term"

	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/term"
	"github.com/mcpkit/mcpkit/registry"
	"github.com/mcpkit/mcpkit/upstream"
)

// configAdd is what `mcpkit config add` was asked.
type configAdd struct {
	serverJSON, host, name string
	pkg, remote            int
	vars, env              []string
	prompt, replace        bool
}

func newConfigAddCmd() *cobra.Command {
	var o configAdd
	cmd := &cobra.Command{
		Use:   "add --server-json FILE --host claude|vscode|cursor|FILE [--package N | --remote N] [--var NAME=VALUE]... [--env NAME=VALUE]...",
		Short: "Install a server described by an MCP Registry server.json into a host's or the gateway's configuration",
		Long: `Install the server a server.json describes (the MCP Registry's format, or one entry
of the registry's API saved to disk) into a configuration file. The file is checked
against the official schema first.

--host is claude (Claude Desktop), vscode (VS Code's User/mcp.json), cursor
(~/.cursor/mcp.json) or the path of a configuration file (a gateway's, or any
host's: "servers" files are written as VS Code's, others under "mcpServers"). The
file is created when missing; the rest of it is kept as written, comments included.

A package becomes the command line its registry type implies:
  npm    npx -y NAME@VERSION          pypi   uvx NAME==VERSION
  oci    docker run -i --rm IMAGE     nuget  dnx NAME@VERSION --yes
  go     go run MODULE@VERSION        cargo  the crate's binary (cargo install it first)
  mcpb   the bundle, downloaded, checked against fileSha256 and unpacked in the user's
         cache directory, run as its manifest says
A remote becomes its URL and headers. --package N or --remote N (from 1) chooses
one when the file offers several.

Values the server needs come from --env NAME=VALUE (its environment variables)
and --var NAME=VALUE (everything else: {variables} of URLs, arguments and
headers; headers by name; positional arguments by their valueHint; named
arguments by their name without dashes). Those not given are asked for on a
terminal (secrets without echo), or on standard input with --prompt; otherwise a
required one missing is an error naming it. Secret values are written to the
configuration file only, never printed.`,
		Example: `  mcpkit config add --server-json server.json --host claude --env API_KEY=...
  mcpkit config add --server-json entry.json --host gateway.json --remote 1 --var Authorization='Bearer ...'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return escapeError(o.run(cmd.Context(), cmd.InOrStdin(), cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.serverJSON, "server-json", "", "the server.json (or registry entry) to install")
	f.StringVar(&o.host, "host", "", "claude, vscode, cursor, or a configuration file")
	f.StringVar(&o.name, "name", "", "the server's name in the configuration (default: the last part of its registry name)")
	f.IntVar(&o.pkg, "package", 0, "install package N (from 1)")
	f.IntVar(&o.remote, "remote", 0, "install remote N (from 1)")
	f.StringArrayVar(&o.vars, "var", nil, "a value the server needs, NAME=VALUE (repeatable)")
	f.StringArrayVar(&o.env, "env", nil, "an environment variable of the package, NAME=VALUE (repeatable)")
	f.BoolVar(&o.prompt, "prompt", false, "ask for missing values on standard input even when it is not a terminal")
	f.BoolVar(&o.replace, "replace", false, "replace a server of the same name")
	_ = cmd.MarkFlagRequired("server-json")
	_ = cmd.MarkFlagRequired("host")
	cmd.MarkFlagsMutuallyExclusive("package", "remote")
	return cmd
}

// choice is what the user picked: a package or a remote.
type choice struct {
	pkg    *registry.Package
	remote *registry.Remote
}

func (o *configAdd) run(ctx context.Context, stdin io.Reader, stderr io.Writer) error {
	data, err := os.ReadFile(o.serverJSON)
	if err != nil {
		return err
	}
	entry, err := registry.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", o.serverJSON, err)
	}
	s := &entry.Server
	ch, err := o.pick(s)
	if err != nil {
		return err
	}
	vals, err := o.values()
	if err != nil {
		return err
	}
	var needs []registry.Need
	var bundle *registry.Bundle
	switch {
	case ch.pkg != nil && ch.pkg.RegistryType == "mcpb":
		if bundle, err = fetchBundle(ctx, stderr, ch.pkg); err != nil {
			return err
		}
		needs = bundle.Needs(ch.pkg)
	case ch.pkg != nil:
		needs = ch.pkg.Needs()
	default:
		needs = ch.remote.Needs()
	}
	in, isTTY := stdin, false
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(f) {
		isTTY = true
	}
	if isTTY || o.prompt {
		if err := ask(in, stderr, isTTY, needs, vals); err != nil {
			return err
		}
	}
	var l *registry.Launch
	switch {
	case bundle != nil:
		l, err = bundle.Launch(ch.pkg, vals)
	case ch.pkg != nil:
		l, err = ch.pkg.Launch(vals)
	default:
		l, err = ch.remote.Launch(vals)
	}
	var me *registry.MissingError
	if errors.As(err, &me) {
		return fmt.Errorf("%w\n  give them with %s (or answer on a terminal)", err, flagsFor(me.Needs))
	}
	if err != nil {
		return err
	}
	file, list, vscode, err := o.target()
	if err != nil {
		return err
	}
	if l.Transport != "stdio" && o.host == "claude" {
		return errors.New("config add: Claude Desktop's file runs local (stdio) servers only; add a remote in its Settings > Connectors, or choose a package with --package")
	}
	name := o.name
	if name == "" {
		name = s.Name[strings.LastIndexByte(s.Name, '/')+1:]
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	out, err := upstream.AddServer(file, old, list, name, hostEntry(l, vscode), o.replace)
	if err != nil {
		return fmt.Errorf("config add: %w", err)
	}
	if old == nil { // a host's first server: its directory may not exist yet
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return fmt.Errorf("config add: %w", err)
		}
	}
	if err := upstream.WriteConfig(file, out); err != nil {
		return fmt.Errorf("config add: %w", err)
	}
	fmt.Fprintf(stderr, "mcpkit: added %q to %s: %s\n", name, file, term.Escape(describeLaunch(l)))
	if len(l.Setup) > 0 {
		fmt.Fprintf(stderr, "mcpkit: install it first: %s\n", term.Escape(strings.Join(l.Setup, " ")))
	}
	return nil
}

// pick chooses the package or remote to install.
func (o *configAdd) pick(s *registry.Server) (choice, error) {
	switch {
	case o.pkg > 0:
		if o.pkg > len(s.Packages) {
			return choice{}, fmt.Errorf("config add: --package %d: the server has %d package(s)\n%s", o.pkg, len(s.Packages), offers(s))
		}
		return choice{pkg: &s.Packages[o.pkg-1]}, nil
	case o.remote > 0:
		if o.remote > len(s.Remotes) {
			return choice{}, fmt.Errorf("config add: --remote %d: the server has %d remote(s)\n%s", o.remote, len(s.Remotes), offers(s))
		}
		return choice{remote: &s.Remotes[o.remote-1]}, nil
	case len(s.Packages) == 1 && len(s.Remotes) == 0:
		return choice{pkg: &s.Packages[0]}, nil
	case len(s.Packages) == 0 && len(s.Remotes) == 1:
		return choice{remote: &s.Remotes[0]}, nil
	case len(s.Packages) == 0 && len(s.Remotes) == 0:
		return choice{}, fmt.Errorf("config add: %s has neither packages nor remotes: nothing to install", term.Escape(s.Name))
	}
	return choice{}, fmt.Errorf("config add: %s offers several ways to run it; choose one:\n%s", term.Escape(s.Name), offers(s))
}

// offers lists a server's packages and remotes with the flag choosing each.
func offers(s *registry.Server) string {
	var b strings.Builder
	for i, p := range s.Packages {
		fmt.Fprintf(&b, "  --package %d  %s %s %s (%s)\n", i+1, p.RegistryType, p.Identifier, p.Version, p.Transport.Type)
	}
	for i, r := range s.Remotes {
		fmt.Fprintf(&b, "  --remote %d   %s %s\n", i+1, r.Type, r.URL)
	}
	return term.Escape(strings.TrimSuffix(b.String(), "\n"))
}

// values reads --var and --env.
func (o *configAdd) values() (registry.Values, error) {
	v := registry.Values{Env: map[string]string{}, Vars: map[string]string{}}
	for _, set := range []struct {
		flag string
		list []string
		into map[string]string
	}{{"--var", o.vars, v.Vars}, {"--env", o.env, v.Env}} {
		for _, kv := range set.list {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return v, fmt.Errorf("config add: %s %q: want NAME=VALUE", set.flag, strings.SplitN(kv, "=", 2)[0])
			}
			set.into[k] = val
		}
	}
	return v, nil
}

// ask asks for each value not given; secrets are read without echo on a
// terminal.
func ask(in io.Reader, w io.Writer, tty bool, needs []registry.Need, vals registry.Values) error {
	var readSecret func(prompt string) (string, error)
	if tty {
		f := in.(*os.File)
		readSecret = func(prompt string) (string, error) { return readSecretLine(f, w, prompt) }
	}
	for _, n := range needs {
		m := vals.Vars
		if n.Kind == registry.KindEnv {
			m = vals.Env
		}
		if _, given := m[n.Name]; given {
			continue
		}
		v, ok, err := term.AskValue(in, w, term.Question{
			Label: n.Name, For: n.For, Description: n.Input.Description, Default: n.Input.Default,
			Choices: n.Input.Choices, Required: n.Input.IsRequired, Secret: n.Input.IsSecret,
		}, readSecret)
		if err != nil {
			return fmt.Errorf("config add: %w", err)
		}
		if ok {
			m[n.Name] = v
		}
	}
	return nil
}

// flagsFor names the flags that give needs.
func flagsFor(needs []registry.Need) string {
	var out []string
	for _, n := range needs {
		out = append(out, fmt.Sprintf("--%s %s=...", n.Kind, n.Name))
	}
	return term.Escape(strings.Join(out, " "))
}

// target is the file to write, its list of servers, and whether entries are
// written as VS Code's (with "type").
func (o *configAdd) target() (file, list string, vscode bool, err error) {
	tag := map[string]string{"claude": "claude", "vscode": "vscode", "cursor": "cursor"}[o.host]
	if tag == "" {
		data, err := os.ReadFile(o.host)
		if err == nil && !strings.Contains(string(data), `"mcpServers"`) && strings.Contains(string(data), `"servers"`) {
			return o.host, "servers", true, nil
		}
		return o.host, "mcpServers", false, nil
	}
	for _, f := range upstream.HostFiles(runtime.GOOS, os.Getenv) {
		if f.Tag == tag { // VS Code: mcp.json, its first file
			if tag == "vscode" {
				return f.Path, "servers", true, nil
			}
			return f.Path, "mcpServers", false, nil
		}
	}
	return "", "", false, fmt.Errorf("config add: no configuration file for %s", o.host)
}

// hostEntry is the configuration entry that runs l.
func hostEntry(l *registry.Launch, vscode bool) map[string]any {
	e := map[string]any{}
	if l.Transport == "stdio" {
		if vscode {
			e["type"] = "stdio"
		}
		e["command"] = l.Command
		e["args"] = append([]string{}, l.Args...)
		if len(l.Env) > 0 {
			e["env"] = l.Env
		}
		return e
	}
	e["type"] = "http"
	if l.Transport == "sse" {
		e["type"] = "sse"
	}
	e["url"] = l.URL
	if len(l.Headers) > 0 {
		e["headers"] = l.Headers
	}
	return e
}

// describeLaunch says what the entry runs, secrets masked and environment
// values left out.
func describeLaunch(l *registry.Launch) string {
	var s string
	if l.Transport == "stdio" {
		s = strings.Join(append([]string{l.Command}, l.Args...), " ")
		if len(l.Env) > 0 {
			s += fmt.Sprintf(" (environment: %s)", strings.Join(slices.Sorted(maps.Keys(l.Env)), ", "))
		}
	} else {
		s = l.Transport + " " + l.URL
		if len(l.Headers) > 0 {
			s += fmt.Sprintf(" (headers: %s)", strings.Join(slices.Sorted(maps.Keys(l.Headers)), ", "))
		}
	}
	secrets := slices.Clone(l.Secrets) // longest first: "Bearer {token}" whole, not only its token
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "***")
		}
	}
	return s
}

// fetchBundle downloads, checks and unpacks an MCP Bundle into the user's
// cache directory, where the host will run it from.
func fetchBundle(ctx context.Context, stderr io.Writer, p *registry.Package) (*registry.Bundle, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("config add: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	b, err := registry.FetchBundle(ctx, nil, p, filepath.Join(cache, "mcpkit", "mcpb"))
	if err != nil {
		return nil, fmt.Errorf("config add: %w", err)
	}
	fmt.Fprintf(stderr, "mcpkit: bundle %s checked (SHA-256 %s) and unpacked in %s\n", term.Escape(p.Identifier), p.FileSHA256, b.Dir)
	return b, nil
}

// escapeError makes an error that may quote a server.json's strings safe to
// print on a terminal, line by line.
func escapeError(err error) error {
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = term.Escape(l)
	}
	return errors.New(strings.Join(lines, "\n"))
}

// readSecretLine turns the terminal's echo off (raw mode) before it prints
// prompt, so that nothing typed after the prompt is shown, and reads one line
// with x/term's line editor, which echoes nothing in a password read.
func readSecretLine(f *os.File, w io.Writer, prompt string) (string, error) {
	fd := int(f.Fd())
	old, err := xterm.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer xterm.Restore(fd, old)
	t := xterm.NewTerminal(struct {
		io.Reader
		io.Writer
	}{f, w}, "")
	return t.ReadPassword(prompt)
}
