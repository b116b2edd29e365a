package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/upstream"
)

// writeGatewayConfig writes a configuration whose servers run this CLI: each
// name maps to the arguments after the binary ("serve" for the demo server).
func writeGatewayConfig(t *testing.T, path string, servers map[string]string) {
	t.Helper()
	entries := map[string]any{}
	for name, args := range servers {
		entries[name] = map[string]any{"command": mcpkitBin, "args": strings.Fields(args)}
	}
	data, err := json.Marshal(map[string]any{"mcpServers": entries})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// runCLI runs the CLI with args (no target appended) and returns stdout,
// stderr and the exit status.
func runCLI(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestGatewayList: --list starts the servers and prints the names the gateway
// gives their features, and what is wrong with a server that does not start.
func TestGatewayList(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeGatewayConfig(t, cfg, map[string]string{"a": "serve", "b": "serve", "broken": "no-such-command"})
	out, errOut, code := runCLI(t, nil, "gateway", "--config", cfg, "--list", "--start-timeout", "30s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"a       ready",
		"broken  backoff",
		`broken: mcp: initialize`, // the child printed its usage and exited
		"tool      a__echo ",
		"tool      b__echo ",
		"prompt    a__greet ",
		"resource  mcpkit-gateway://a/demo://readme ",
		"template  mcpkit-gateway://b/demo://items/{id} ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, nil, "gateway", "--config", cfg, "--list", "--json")
	var listing struct {
		Servers []struct{ Name, State, Error string }
		Entries []struct{ Kind, Name, Server, Original string }
	}
	if err := json.Unmarshal([]byte(out), &listing); err != nil || code != 0 {
		t.Fatalf("--list --json: %v (exit %d)\n%s", err, code, out)
	}
	if len(listing.Servers) != 3 || listing.Servers[1].Name != "b" || listing.Servers[1].State != "ready" || listing.Servers[2].Error == "" {
		t.Errorf("servers = %+v", listing.Servers)
	}
	found := false
	for _, e := range listing.Entries {
		found = found || (e.Kind == "tool" && e.Name == "a__count" && e.Server == "a" && e.Original == "count")
	}
	if !found {
		t.Errorf("entries lack a__count: %+v", listing.Entries)
	}
}

// TestGatewayOverStdio: the CLI's own client calls a tool through the gateway
// serving on stdio, with progress.
func TestGatewayOverStdio(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeGatewayConfig(t, cfg, map[string]string{"demo": "serve"})
	out, errOut, code := runCLI(t, nil, "call", "demo__count", `{"n":2}`, "--", mcpkitBin, "gateway", "--config", cfg)
	if code != 0 || out != "2\n" || !strings.Contains(errOut, "progress 1/2") {
		t.Errorf("call demo__count through the gateway: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestGatewayBadConfig: every mistake is reported with its file, server and
// field, and nothing starts.
func TestGatewayBadConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "bad.json")
	data := `{"mcpServers": {"gh": {"command": "x", "args": "--one"}, "api": {"url": "https://h/mcp", "timeout": "soon"}}}`
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, nil, "gateway", "--config", cfg)
	want := "mcpkit: " + cfg + `: server "api": field "timeout": want a number of seconds or a duration such as "30s", got "soon"` + "\n" +
		cfg + `: server "gh": field "args": want an array of strings, got a string` + "\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	_, errOut, code = runCLI(t, nil, "config", "check", cfg)
	if code != 1 || errOut != want {
		t.Errorf("config check: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestConfigImport finds the configuration of each host under a fake home and
// prints them as one file the gateway reads.
func TestConfigImport(t *testing.T) {
	home := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".config/Claude/claude_desktop_config.json", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"]}}, "globalShortcut": ""}`)
	write(".config/Code/User/mcp.json", "{\n // comments, as VS Code allows\n \"servers\": {\"gh\": {\"type\": \"http\", \"url\": \"https://api.example.com/mcp\", \"headers\": {\"Authorization\": \"Bearer ${env:GH_TOKEN}\"}},},\n \"inputs\": []\n}")
	write(".config/Code/User/settings.json", `{"editor.tabSize": 2, "mcp": {"servers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"]}}}}`)
	write(".cursor/mcp.json", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "/home"]}}}`)
	write(".codeium/windsurf/mcp_config.json", `{"mcpServers": {"remote": {"serverUrl": "https://remote.example.com/sse"}}}`)
	write(".config/Code - Insiders/User/settings.json", `{"editor.tabSize": 4}`)

	out, errOut, code := runCLI(t, []string{"HOME=" + home, "XDG_CONFIG_HOME="}, "config", "import")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Claude Desktop: 1 server(s)", "VS Code: 1 server(s) from " + filepath.Join(home, ".config/Code/User/mcp.json"), "Cursor: 1 server(s)", "Windsurf: 1 server(s)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "Insiders") {
		t.Errorf("a settings file without servers is not worth a line:\n%s", errOut)
	}
	cfg, err := upstream.Parse("imported.json", []byte(out), func(name string) (string, bool) { return "tok", name == "GH_TOKEN" })
	if err != nil {
		t.Fatalf("the output does not load: %v\n%s", err, out)
	}
	if got, want := cfg.Names(), []string{"fs", "fs-cursor", "gh", "remote"}; !reflect.DeepEqual(got, want) {
		t.Errorf("servers %v, want %v (the same fs from two hosts once, Cursor's other fs renamed)\n%s", got, want, out)
	}
	if gh := cfg.Servers["gh"]; gh.Transport != upstream.TransportHTTP || gh.Headers["Authorization"] != "Bearer tok" {
		t.Errorf("gh = %+v", gh)
	}
	if !strings.Contains(out, "${env:GH_TOKEN}") {
		t.Errorf("variables must be copied, not substituted:\n%s", out)
	}
	if fs := cfg.Servers["fs-cursor"]; fs.Args[2] != "/home" {
		t.Errorf("fs-cursor = %+v", fs)
	}
	if r := cfg.Servers["remote"]; r.URL != "https://remote.example.com/sse" {
		t.Errorf("remote = %+v", r)
	}
}
