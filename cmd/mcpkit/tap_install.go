package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpkit/mcpkit/upstream"
)

// installState is what `tap install` keeps next to a configuration file (in
// FILE.mcpkit-tap.json) for `tap uninstall`; the original file is kept as
// FILE.mcpkit-tap.bak.
type installState struct {
	// Installed is the SHA-256 of the file as install last wrote it.
	Installed string `json:"installed"`
	// Exact is true while the backup plus the wrapped entries is all there is to
	// the file: only install changed it since the backup.
	Exact bool `json:"exact"`
	// Servers are the entries install rewrote, by name.
	Servers map[string]*installedServer `json:"servers"`
}

type installedServer struct {
	Original string `json:"original"` // the entry as it was written
	Wrapped  string `json:"wrapped"`  // the entry as install wrote it
	Listen   string `json:"listen,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	Out      string `json:"out"`
}

func backupPath(file string) string { return file + ".mcpkit-tap.bak" }
func statePath(file string) string  { return file + ".mcpkit-tap.json" }

func newTapInstallCmd() *cobra.Command {
	var host, outDir string
	var servers []string
	cmd := &cobra.Command{
		Use:   "install [--host claude|vscode|cursor|FILE] [--server NAME] [--out DIR]",
		Short: "Rewrite a host's MCP configuration so that its servers run through the tap",
		Example: `  mcpkit tap install --host claude --out /tmp/captures
  mcpkit tap install --host .vscode/mcp.json --server github`,
		Long: `Rewrite a host's own MCP configuration so that its servers run through "mcpkit tap".

--host is claude (Claude Desktop), vscode (VS Code's User/mcp.json, else the "mcp"
section of User/settings.json), cursor (~/.cursor/mcp.json) or the path of a
configuration file; --server limits it to some servers (repeatable).

A stdio server's command becomes "MCPKIT tap --out DIR/NAME.jsonl -- COMMAND ARGS...",
MCPKIT being this program's absolute path. An HTTP server's URL is pointed at a tap on
a free loopback port; a host cannot start an HTTP tap for itself, so install prints
the "mcpkit tap --listen ... --upstream ..." command to run (keep it running while
the host is in use). Everything else in the file is kept as written, comments
included (JSON with comments is read and edited in place).

The original file is kept as FILE.mcpkit-tap.bak. Installing again wraps nothing
twice; "mcpkit tap uninstall" restores the file byte for byte, or, when something
else changed the file since, only the server entries.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := installFiles(host)
			if err != nil {
				return err
			}
			if outDir == "" {
				if outDir, err = os.UserCacheDir(); err != nil {
					return fmt.Errorf("tap install: --out: %w", err)
				}
				outDir = filepath.Join(outDir, "mcpkit", "tap")
			}
			if outDir, err = filepath.Abs(outDir); err != nil {
				return fmt.Errorf("tap install: --out: %w", err)
			}
			if err := os.MkdirAll(outDir, 0o700); err != nil {
				return fmt.Errorf("tap install: %w", err)
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("tap install: finding this program: %w", err)
			}
			for _, f := range files {
				if err := installTap(cmd.OutOrStdout(), f, self, outDir, servers); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "claude, vscode, cursor, or a configuration file (default: each of them that exists)")
	cmd.Flags().StringSliceVar(&servers, "server", nil, "only this server (repeatable)")
	cmd.Flags().StringVar(&outDir, "out", "", "write the captures in this directory (default: the user cache directory's mcpkit/tap)")
	return cmd
}

func newTapUninstallCmd() *cobra.Command {
	var host string
	cmd := &cobra.Command{
		Use:     "uninstall [--host claude|vscode|cursor|FILE]",
		Short:   "Restore a host's MCP configuration as it was before tap install",
		Example: `  mcpkit tap uninstall --host claude`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := installFiles(host)
			if err != nil {
				return err
			}
			done := 0
			for _, f := range files {
				if _, err := os.Stat(statePath(f)); errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err := uninstallTap(cmd.OutOrStdout(), f); err != nil {
					return err
				}
				done++
			}
			if done == 0 {
				return fmt.Errorf("tap uninstall: no file here has the tap installed (no %s)", filepath.Base(statePath("FILE")))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "claude, vscode, cursor, or a configuration file (default: each of them that exists)")
	return cmd
}

// installFiles returns the configuration files --host names.
func installFiles(host string) ([]string, error) {
	tags := map[string][]string{"claude": {"claude"}, "vscode": {"vscode"}, "cursor": {"cursor"}, "": {"claude", "vscode", "cursor"}}
	want, ok := tags[host]
	if !ok {
		return []string{host}, nil // a file
	}
	var out []string
	for _, tag := range want {
		for _, f := range upstream.HostFiles(runtime.GOOS, os.Getenv) {
			if f.Tag != tag {
				continue
			}
			data, err := os.ReadFile(f.Path)
			if err != nil {
				continue
			}
			if _, err := upstream.LocateServers(f.Path, data); err == nil {
				out = append(out, f.Path)
				break // VS Code: mcp.json before settings.json
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tap install: no MCP configuration of %s found here; name the file with --host FILE", strings.Join(want, ", "))
	}
	return out, nil
}

func sum(data []byte) string { h := sha256.Sum256(data); return hex.EncodeToString(h[:]) }

// installTap wraps the servers of one file.
func installTap(w io.Writer, file, self, outDir string, only []string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("tap install: %w", err)
	}
	spans, err := upstream.LocateServers(file, data)
	if err != nil {
		return fmt.Errorf("tap install: %w", err)
	}
	st := &installState{Exact: true, Servers: map[string]*installedServer{}}
	if raw, err := upstream.ReadBeside(statePath(file)); err == nil {
		if err := json.Unmarshal(raw, st); err != nil {
			return fmt.Errorf("tap install: %s: %w", statePath(file), err)
		}
		st.Exact = st.Exact && st.Installed == sum(data)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tap install: %w", err) // a symlink planted in its place, say
	}
	var edits []upstream.Edit
	var httpTaps []string
	for _, e := range spans {
		if len(only) > 0 && !slices.Contains(only, e.Name) {
			continue
		}
		if _, done := st.Servers[e.Name]; done {
			fmt.Fprintf(w, "%s: %s: already through the tap\n", file, e.Name)
			continue
		}
		command, args, rawURL := e.Launch()
		out := filepath.Join(outDir, safeName(e.Name)+".jsonl")
		rec := &installedServer{Original: string(data[e.Value.Start:e.Value.End]), Out: out}
		var entryEdits []upstream.Edit
		switch {
		case command != "":
			entryEdits = e.CommandEdits(self, append([]string{"tap", "--out", out, "--", command}, args...))
		case rawURL != "":
			u, err := url.Parse(rawURL)
			if err != nil || u.Host == "" {
				fmt.Fprintf(w, "%s: %s: left as it is: its URL %q cannot be tapped\n", file, e.Name, rawURL)
				continue
			}
			listen, err := freeLoopbackPort()
			if err != nil {
				return fmt.Errorf("tap install: %w", err)
			}
			rec.Listen, rec.Upstream = listen, rawURL
			tapURL := *u
			tapURL.Scheme, tapURL.Host, tapURL.User = "http", listen, nil
			entryEdits = append(entryEdits, e.URLEdit(tapURL.String()))
			tapCmd := fmt.Sprintf("%s tap --listen %s --upstream %s --out %s", shellQuote(self), listen, shellQuote(rawURL), shellQuote(out))
			if hasStaticAuthorization(e) {
				// The host sends the entry's own credentials: the tap relays
				// them rather than authorizing with OAuth (which would drop them).
				tapCmd += " --no-oauth"
			}
			httpTaps = append(httpTaps, tapCmd)
		default:
			continue
		}
		rec.Wrapped = e.Edited(data, entryEdits) // to recognise it at uninstall
		st.Servers[e.Name] = rec
		edits = append(edits, entryEdits...)
		fmt.Fprintf(w, "%s: %s: through the tap, capture %s\n", file, e.Name, out)
	}
	if len(edits) == 0 {
		return nil
	}
	if fi, err := os.Lstat(backupPath(file)); errors.Is(err, fs.ErrNotExist) {
		if err := upstream.WriteBeside(backupPath(file), data); err != nil {
			return fmt.Errorf("tap install: backup: %w", err)
		}
	} else if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("tap install: %s: not a regular file (a symlink?): not used as the backup", backupPath(file))
	}
	out := upstream.ApplyEdits(data, edits)
	st.Installed = sum(out)
	if err := writeState(file, st); err != nil {
		return err
	}
	if err := upstream.WriteConfig(file, out); err != nil {
		return fmt.Errorf("tap install: %w", err)
	}
	if len(httpTaps) > 0 {
		fmt.Fprintf(w, "HTTP servers now point at loopback taps; run these while the host is in use:\n  %s\n", strings.Join(httpTaps, "\n  "))
	}
	return nil
}

// uninstallTap restores one file.
func uninstallTap(w io.Writer, file string) error {
	raw, err := upstream.ReadBeside(statePath(file))
	if err != nil {
		return fmt.Errorf("tap uninstall: %w", err)
	}
	st := &installState{}
	if err := json.Unmarshal(raw, st); err != nil {
		return fmt.Errorf("tap uninstall: %s: %w", statePath(file), err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("tap uninstall: %w", err)
	}
	backup, berr := upstream.ReadBeside(backupPath(file))
	var out []byte
	if st.Exact && berr == nil && sum(data) == st.Installed {
		out = backup
		fmt.Fprintf(w, "%s: restored as it was\n", file)
	} else {
		spans, err := upstream.LocateServers(file, data)
		if err != nil {
			return fmt.Errorf("tap uninstall: %w", err)
		}
		var edits []upstream.Edit
		restored := 0
		for _, e := range spans {
			rec, ok := st.Servers[e.Name]
			if !ok {
				continue
			}
			if string(data[e.Value.Start:e.Value.End]) != rec.Wrapped {
				fmt.Fprintf(w, "%s: %s: left as it is: changed since install\n", file, e.Name)
				continue
			}
			edits = append(edits, upstream.Edit{Span: e.Value, Text: rec.Original})
			restored++
		}
		out = upstream.ApplyEdits(data, edits)
		fmt.Fprintf(w, "%s: the file changed since install: restored only the %d server entries\n", file, restored)
	}
	if err := upstream.WriteConfig(file, out); err != nil {
		return fmt.Errorf("tap uninstall: %w", err)
	}
	return errors.Join(os.Remove(statePath(file)), removeIfExists(backupPath(file)))
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func writeState(file string, st *installState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("tap install: %w", err)
	}
	if err := upstream.WriteBeside(statePath(file), append(b, '\n')); err != nil {
		return fmt.Errorf("tap install: %w", err)
	}
	return nil
}

// safeName makes a server name usable as a file name.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, name)
}

// freeLoopbackPort returns a loopback address with a port free now.
func freeLoopbackPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// hasStaticAuthorization reports whether a server entry sends an
// Authorization header of its own (a static token in its "headers").
func hasStaticAuthorization(e upstream.EntrySpan) bool {
	var headers map[string]json.RawMessage
	if json.Unmarshal(e.Values["headers"], &headers) != nil {
		return false
	}
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,", r)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
