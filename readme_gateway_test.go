package mcpkit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// readmeShellWith returns the lines of the README's sh block that contains
// marker, with backslash-continued lines joined.
func readmeShellWith(t *testing.T, marker string) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(readme), "```sh\n")[1:] {
		block, _, _ := strings.Cut(part, "```\n")
		if strings.Contains(block, marker) {
			block = strings.ReplaceAll(block, "\\\n", "")
			return strings.Split(strings.TrimSpace(block), "\n")
		}
	}
	t.Fatalf("README.md has no sh block with %q", marker)
	return nil
}

// TestREADMEGatewayAccessRecipe runs the README's recipe for a gateway with
// static tokens, access rules and rate limits as written — the token and
// rules files made by its echo lines, the gateway line with only its address
// changed to a free port, the client line through bash — against an mcp.json
// of two servers: alice sees only server demo's tools.
func TestREADMEGatewayAccessRecipe(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "mcpkit")); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"demo": {"command": "` + bin + `", "args": ["serve"]}, "lab": {"command": "` + bin + `", "args": ["serve"]}}}`
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	lines := readmeShellWith(t, "--access access.json")
	var url string
	var calls []string
	for _, line := range lines {
		w := shellWords(line)
		switch {
		case len(w) > 0 && w[0] == "echo":
			sh := exec.CommandContext(ctx, "bash", "-c", line)
			sh.Dir = dir
			if out, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("%q: %v\n%s", line, err, out)
			} else if len(out) > 0 {
				t.Fatalf("%q printed %s", line, out)
			}
		case len(w) > 1 && w[0] == "bin/mcpkit" && w[1] == "gateway":
			args := w[1:]
			for i, a := range args {
				if a == "127.0.0.1:8080" {
					args[i] = "127.0.0.1:0"
				}
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir = dir
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			u := testkit.StartAnnounced(t, ctx, cmd, stderr, "mcpkit: serving ")
			_, rest, _ := strings.Cut(u, " at ")
			url = strings.Fields(rest)[0]
		case len(w) > 1 && w[0] == "bin/mcpkit":
			calls = append(calls, line)
		default:
			t.Fatalf("the recipe has a line this test does not know how to run: %q", line)
		}
	}
	if url == "" || len(calls) != 1 {
		t.Fatalf("the recipe starts a gateway at %q and makes %d calls; want one of each", url, len(calls))
	}
	call := strings.Replace(calls[0], "http://127.0.0.1:8080/mcp", url, 1)
	cmd := exec.CommandContext(ctx, "bash", "-c", call)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%q: %v\n%s", call, err, out)
	}
	if !strings.Contains(string(out), "demo__echo") || strings.Contains(string(out), "lab__") {
		t.Fatalf("alice should see demo's tools and not lab's:\n%s", out)
	}
	token, err := os.ReadFile(filepath.Join(dir, "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	_, secret, _ := strings.Cut(strings.TrimSpace(string(token)), ":")
	if len(secret) != 32 || strings.Contains(string(out), secret) {
		t.Fatalf("token %q (want 32 hex digits, never printed); output:\n%s", secret, out)
	}
	// Without the token the gateway answers 401.
	bare := exec.CommandContext(ctx, bin, "tools", "--url", url)
	if out, err := bare.CombinedOutput(); err == nil || !strings.Contains(string(out), "401") {
		t.Fatalf("no token: %v\n%s", err, out)
	}
}
