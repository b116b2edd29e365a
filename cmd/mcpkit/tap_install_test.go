//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/upstream"
)

// copyFixture copies testdata/tapinstall/name into a temporary directory.
func copyFixture(t *testing.T, name string) (path string, original []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tapinstall", name))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// TestTapInstallHostFiles: on copies of each host's configuration, install wraps
// every stdio server (and points HTTP servers at a loopback tap), keeps the rest
// of the file as written (comments included), wraps nothing twice, and
// uninstall restores the file byte for byte.
func TestTapInstallHostFiles(t *testing.T) {
	for _, tc := range []struct {
		file        string
		stdio, http []string
		kept        []string // text that must survive install
	}{
		{"claude_desktop_config.json", []string{"filesystem", "weather"}, nil, []string{`"globalShortcut": "Alt+Space"`, `"env": {"UNITS": "metric"}`}},
		{"vscode_mcp.json", []string{"Perplexity"}, []string{"github"}, []string{"// Inputs are prompted", "/* a stdio server with a secret from an input */", "// a remote server", `"type": "stdio"`, `"PERPLEXITY_API_KEY": "${input:perplexity-key}"`}},
		{"cursor_mcp.json", []string{"local-node"}, []string{"remote"}, []string{`"Authorization": "Bearer ${env:MY_TOKEN}"`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path, original := copyFixture(t, tc.file)
			outDir := t.TempDir()
			out, errOut, code := runCLI(t, nil, "tap", "install", "--host", path, "--out", outDir)
			if code != 0 {
				t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
			}
			installed, _ := os.ReadFile(path)
			for _, k := range tc.kept {
				if !bytes.Contains(installed, []byte(k)) {
					t.Errorf("install lost %q:\n%s", k, installed)
				}
			}
			entries, err := upstream.ServerEntries(path, installed)
			if err != nil {
				t.Fatalf("the rewritten file does not load: %v\n%s", err, installed)
			}
			entry := func(name string) (s struct {
				Command, URL string
				Args         []string
			}) {
				if err := json.Unmarshal(entries[name], &s); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return s
			}
			for _, name := range tc.stdio {
				s := entry(name)
				if s.Command != mcpkitBin || len(s.Args) < 4 || s.Args[0] != "tap" || s.Args[2] != filepath.Join(outDir, name+".jsonl") || s.Args[3] != "--" {
					t.Errorf("%s: command %q %q; want %s tap --out DIR/%s.jsonl -- ...", name, s.Command, s.Args, mcpkitBin, name)
				}
			}
			for _, name := range tc.http {
				s := entry(name)
				if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.Contains(out, "tap --listen 127.0.0.1:") {
					t.Errorf("%s: url %q; install said\n%s", name, s.URL, out)
				}
			}
			out, _, code = runCLI(t, nil, "tap", "install", "--host", path, "--out", outDir)
			again, _ := os.ReadFile(path)
			if code != 0 || !bytes.Equal(again, installed) || !strings.Contains(out, "already through the tap") {
				t.Errorf("installing twice changed the file (exit %d):\n%s\n%s", code, out, again)
			}
			out, errOut, code = runCLI(t, nil, "tap", "uninstall", "--host", path)
			restored, _ := os.ReadFile(path)
			if code != 0 || !bytes.Equal(restored, original) || !strings.Contains(out, "restored as it was") {
				t.Fatalf("uninstall: exit %d %s%s\nrestored:\n%s", code, out, errOut, restored)
			}
			for _, leftover := range []string{path + ".mcpkit-tap.bak", path + ".mcpkit-tap.json"} {
				if _, err := os.Stat(leftover); err == nil {
					t.Errorf("%s left behind", leftover)
				}
			}
		})
	}
}

// TestTapUninstallAfterHostRewrite: when the host changed the file after install,
// uninstall restores the server entries only, keeps the host's change, and says so.
func TestTapUninstallAfterHostRewrite(t *testing.T) {
	path, original := copyFixture(t, "claude_desktop_config.json")
	if _, errOut, code := runCLI(t, nil, "tap", "install", "--host", path, "--out", t.TempDir(), "--server", "weather"); code != 0 {
		t.Fatal(errOut)
	}
	installed, _ := os.ReadFile(path)
	hostEdit := func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"globalShortcut": "Alt+Space"`), []byte(`"globalShortcut": "Ctrl+Space"`), 1)
	}
	if err := os.WriteFile(path, hostEdit(installed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, nil, "tap", "uninstall", "--host", path)
	restored, _ := os.ReadFile(path)
	if code != 0 || !bytes.Equal(restored, hostEdit(original)) || !strings.Contains(out, "the file changed since install: restored only the 1 server entries") {
		t.Fatalf("exit %d %s%s\nrestored:\n%s", code, out, errOut, restored)
	}
}

// TestTapInstallRunsTheTap: the command line install writes is a working tap: run
// as a host would, it serves a call and records it.
func TestTapInstallRunsTheTap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"demo": {"command": "`+mcpkitBin+`", "args": ["serve"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "captures")
	if _, errOut, code := runCLI(t, nil, "tap", "install", "--host", path, "--out", outDir); code != 0 {
		t.Fatal(errOut)
	}
	cfg, err := upstream.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers["demo"]
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, append([]string{"call", "echo", `{"message":"hi"}`, "--", s.Command}, s.Args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "hello hi\n" {
		t.Fatalf("%v: %q %s", err, stdout.String(), stderr.String())
	}
	_, recs, err := capture.ReadFile(filepath.Join(outDir, "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := capture.Summarize(recs); sum.Requests < 2 || len(sum.Unanswered) != 0 {
		t.Errorf("capture: %s", sum.String())
	}
}

// TestTapInstallKeepsStaticAuthorization: a remote server whose entry sends a
// static Authorization header keeps working through the tap `tap install`
// prints: the command it prints (run as printed) relays the host's header
// (--no-oauth) instead of dropping it to try OAuth, which the server answered
// with 401.
func TestTapInstallKeepsStaticAuthorization(t *testing.T) {
	srv, err := demo.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := mcpkit.NewHTTPHandler(srv, nil)
	static := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="static"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer static.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	cfg := `{"mcpServers": {"remote": {"url": "` + static.URL + `/mcp", "headers": {"Authorization": "Bearer ${env:MY_TOKEN}"}}}}`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, nil, "tap", "install", "--host", path, "--out", filepath.Join(dir, "captures"))
	if code != 0 {
		t.Fatal(errOut)
	}
	var printed string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " tap --listen ") {
			printed = strings.TrimSpace(line)
		}
	}
	if !strings.HasSuffix(printed, " --no-oauth") {
		t.Fatalf("install printed %q; want a tap with --no-oauth\n%s", printed, out)
	}
	words := strings.Fields(printed) // the paths in this test need no quoting
	if words[0] != mcpkitBin {
		t.Fatalf("printed %q", printed)
	}
	tapURL, stop := startHTTPTapArgs(t, words[1:])
	defer stop()
	t.Setenv("MY_TOKEN", "s3cret")
	installed, err := upstream.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	entry := installed.Servers["remote"]
	if !strings.HasPrefix(entry.URL, tapURL) {
		t.Fatalf("the entry points at %q, the tap listens at %q", entry.URL, tapURL)
	}
	// What the host sends: the entry's URL and headers, ${env:...} expanded.
	res, errOut, code := runURL(t, entry.URL, "call", "echo", `{"message":"hi"}`, "--header", "Authorization: "+entry.Headers["Authorization"])
	if code != 0 || res != "hello hi\n" {
		t.Errorf("through the installed tap: %d %q %q", code, res, errOut)
	}
}
