package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// installHint says how to install the npm peers; every failure about them ends with it.
const installHint = "run `npm ci --prefix interop` from the repository root first (scripts/test.sh does it)"

// legacyVersions are the protocol versions negotiated through initialize, newest
// first; the pinned peers support them all.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// testTimeout bounds each test: every process it starts and every request it makes.
const testTimeout = 60 * time.Second

// requirePeers returns the path of node once it has checked that the npm peers
// pinned in package.json are installed at exactly those versions. It skips the test
// in -short mode and fails it (never skips) when something is missing.
func requirePeers(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("interop tests start Node.js peers; skipped in -short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("interop: Node.js is not installed (%v): install it (Debian: apt-get install nodejs npm), then %s", err, installHint)
	}
	pinned := pinnedPeers(t)
	var problems []string
	for _, name := range sortedKeys(pinned) {
		installed, err := installedVersion(name)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is not installed (%v)", name, err))
		case installed != pinned[name]:
			problems = append(problems, fmt.Sprintf("%s is %s, but package.json pins %s", name, installed, pinned[name]))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("interop: the npm peers are not installed as pinned:\n\t%s\n%s", strings.Join(problems, "\n\t"), installHint)
	}
	return node
}

// pinnedPeers returns the dependencies of package.json, name to exact version.
func pinnedPeers(t *testing.T) map[string]string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, "package.json", &pkg)
	if len(pkg.Dependencies) == 0 {
		t.Fatal("interop: package.json lists no dependencies")
	}
	for name, v := range pkg.Dependencies {
		if strings.ContainsAny(v, "^~<>*x| ") {
			t.Fatalf("interop: package.json must pin %s to an exact version, not %q", name, v)
		}
	}
	return pkg.Dependencies
}

// installedVersion returns the version of the npm package installed in node_modules.
func installedVersion(name string) (string, error) {
	data, err := os.ReadFile(filepath.Join("node_modules", filepath.FromSlash(name), "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("reading its package.json: %w", err)
	}
	return pkg.Version, nil
}

// packageBin returns the absolute path of the script an npm package installs as its
// command (its package.json "bin"), which is what `npx <package>` would run.
func packageBin(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("node_modules", filepath.FromSlash(name))
	var pkg struct {
		Bin json.RawMessage `json:"bin"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	var rel string
	if err := json.Unmarshal(pkg.Bin, &rel); err != nil {
		var bins map[string]string
		if err := json.Unmarshal(pkg.Bin, &bins); err != nil || len(bins) != 1 {
			t.Fatalf("interop: %s: expected one command in package.json \"bin\", got %s", name, pkg.Bin)
		}
		for _, v := range bins {
			rel = v
		}
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("interop: %s: its command %s is missing (%v); %s", name, abs, err, installHint)
	}
	return abs
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("interop: %v; %s", err, installHint)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("interop: %s: %v", path, err)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// eventLog collects lines (a server's stderr, notifications) from any goroutine and
// lets a test wait, with a deadline, until one it expects has arrived. Waiting is
// how the tests synchronise with servers that act on their own after initialize.
type eventLog struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed and replaced whenever a line arrives
}

func newEventLog() *eventLog { return &eventLog{changed: make(chan struct{})} }

// add records one line; it never blocks.
func (l *eventLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	close(l.changed)
	l.changed = make(chan struct{})
}

// snapshot returns the lines so far.
func (l *eventLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// waitCount waits until n lines contain substr, and returns the n-th.
func (l *eventLog) waitCount(ctx context.Context, substr string, n int) (string, error) {
	for {
		l.mu.Lock()
		seen := 0
		for _, line := range l.lines {
			if strings.Contains(line, substr) {
				seen++
				if seen == n {
					l.mu.Unlock()
					return line, nil
				}
			}
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for line %d containing %q: %w (%d seen)", n, substr, ctx.Err(), seen)
		}
	}
}

// startNodeServer runs `node script args...` as an MCP server over stdio, connects
// client to it and returns the session and the record of every message exchanged.
// Each line of the server's stderr is added to stderr (and printed if the test
// fails). The session is closed at cleanup, which stops the server (stdin closed,
// then SIGTERM, then SIGKILL, bounded), and whatever is left of its process group
// is killed after that.
func startNodeServer(ctx context.Context, t *testing.T, node string, client *mcp.Client, stderr *eventLog, script string, args ...string) (*mcp.ClientSession, *recordingConn) {
	t.Helper()
	cmd := exec.Command(node, append([]string{script}, args...)...)
	conn, err := stdio.NewCommandConn(ctx, cmd, &stdio.CommandOptions{
		Stderr:       stderr.add,
		CloseTimeout: 2 * time.Second,
		TermTimeout:  2 * time.Second,
	})
	if err != nil {
		t.Fatalf("starting %s: %v", script, err)
	}
	pid := conn.Pid()
	t.Cleanup(func() {
		select {
		case <-conn.Exited():
		default:
			t.Errorf("server process %d still running after Close; killing it", pid)
		}
		testkit.KillGroup(pid)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr of %s:\n\t%s", filepath.Base(script), strings.Join(stderr.snapshot(), "\n\t"))
		}
	})
	rec := &recordingConn{Conn: conn}
	cs, err := client.Connect(ctx, rec)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("connecting to %s: %v", script, err)
	}
	t.Cleanup(func() {
		start := time.Now()
		err := cs.Close()
		t.Logf("closing the session (and stopping the server) took %v", time.Since(start).Round(time.Millisecond))
		var exit *stdio.ExitError
		if errors.As(err, &exit) {
			t.Errorf("server exited unsuccessfully: %v", err)
		}
	})
	return cs, rec
}

// callTool calls a tool and fails the test on a protocol error.
func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args any, opts ...mcp.RequestOption) *protocol.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, name, args, opts...)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// textOf joins the text blocks of a tool result.
func textOf(content []protocol.Content) string {
	var b strings.Builder
	for _, c := range content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// toolNames lists every tool the server offers, following pagination.
func toolNames(ctx context.Context, t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if !json.Valid(tool.InputSchema) {
			t.Errorf("tool %s: input schema is not valid JSON: %s", tool.Name, tool.InputSchema)
		}
		names = append(names, tool.Name)
	}
	return names
}

// requireAll fails the test unless have contains every name in want.
func requireAll(t *testing.T, what string, have []string, want ...string) {
	t.Helper()
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			t.Errorf("%s: %q missing from %q", what, w, have)
		}
	}
}
