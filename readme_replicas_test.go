package mcpkit_test

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// readmeShell returns the lines of the first sh block under the README heading.
func readmeShell(t *testing.T, heading string) []string {
	t.Helper()
	_, block, ok := strings.Cut(readmeSection(t, heading), "```sh\n")
	if !ok {
		t.Fatalf("no sh block under %q", heading)
	}
	block, _, _ = strings.Cut(block, "```\n")
	return strings.Split(strings.TrimSpace(block), "\n")
}

// shellWords splits a README command line into words: blanks separate them,
// single quotes keep blanks, a trailing "&" or "# comment" is dropped.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '#' && !in:
			i = len(line)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	if n := len(words); n > 0 && words[n-1] == "&" {
		words = words[:n-1]
	}
	return words
}

// buildCLI builds cmd/mcpkit into the test's temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpkit")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/mcpkit").CombinedOutput(); err != nil {
		t.Fatalf("building mcpkit: %v\n%s", err, out)
	}
	return bin
}

// TestREADMEReplicaRecipe runs the README's "Several replicas" recipe as
// written — each serve line with its flags, nginx with
// deploy/nginx/mcpkit-replicas.conf as is, and the client line — with only
// the addresses changed to free ports and the test's redis-server: legacy
// sessions, whose requests nginx spreads over the replicas, are served.
// Without --max-sessions-per-client or the conf's Host, the replicas refused
// every request with 403 ("not a loopback host").
func TestREADMEReplicaRecipe(t *testing.T) {
	nginx := findNginx(t)
	rs := redistest.Start(t)
	bin := buildCLI(t)
	lines := readmeShell(t, "## Several replicas: `mcpkit serve --redis`")
	keys := "k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	addr := regexp.MustCompile(`^127\.0\.0\.1:808[1-9]$`)
	var addrs []string
	var calls [][]string
	for _, line := range lines {
		w := shellWords(line)
		switch {
		case len(w) == 0 || w[0] == "export":
			continue
		case len(w) > 1 && w[0] == "bin/mcpkit" && w[1] == "serve":
			args := w[1:]
			for i, a := range args {
				if addr.MatchString(a) {
					args[i] = "127.0.0.1:0"
				}
				if strings.HasPrefix(a, "redis://") {
					args[i] = rs.URL()
				}
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(os.Environ(), "MCPKIT_STATE_KEYS="+keys)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			u := testkit.StartAnnounced(t, ctx, cmd, stderr, "mcpkit: serving the demo server at http://")
			addrs = append(addrs, strings.TrimSuffix(strings.Fields(u)[0], "/mcp"))
		case len(w) > 1 && w[0] == "bin/mcpkit":
			calls = append(calls, w[1:])
		default:
			t.Fatalf("the recipe has a line this test does not know how to run: %q", line)
		}
	}
	if len(addrs) != 3 || len(calls) == 0 {
		t.Fatalf("the recipe starts %d replicas and makes %d calls; want 3 and some", len(addrs), len(calls))
	}
	url, accessLog := testkit.StartBalancer(t, nginx, "deploy/nginx/mcpkit-replicas.conf", addrs)
	for _, call := range calls {
		for i, a := range call {
			call[i] = strings.Replace(a, "http://127.0.0.1:8080", url, 1)
		}
		for range 3 {
			out, err := exec.CommandContext(ctx, bin, call...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "hello hi") {
				t.Fatalf("%v through nginx: %v\n%s", call, err, out)
			}
		}
	}
	if seen := testkit.Upstreams(t, accessLog, ""); len(seen) != 3 {
		t.Errorf("the requests went to %v; want all 3 replicas", seen)
	}
}
