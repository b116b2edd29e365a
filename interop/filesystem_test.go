package interop

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// rootsApplied is what server-filesystem writes to stderr once it has replaced its
// allowed directories with the roots the client listed.
const rootsApplied = "Updated allowed directories from MCP roots: 1 valid directories"

// fileURI returns the file:// URI of an absolute path, percent-encoded.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// workspace makes a directory (with a space and a non-ASCII letter in its name, to
// exercise the URI encoding) holding one file and one subdirectory, and returns its
// path with symbolic links resolved, as the server reports it.
func workspace(t *testing.T, file, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "work space ü")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestMcpkitClientAgainstServerFilesystem starts the reference server
// @modelcontextprotocol/server-filesystem with no directory arguments, so that the
// roots mcpkit's client declares are its only allowed directories. The server asks
// roots/list after initialize; the test checks it then reads and lists the
// directory, refuses paths outside it, and follows a change of roots
// (notifications/roots/list_changed, then roots/list again).
func TestMcpkitClientAgainstServerFilesystem(t *testing.T) {
	node := requirePeers(t)
	entry := packageBin(t, "@modelcontextprotocol/server-filesystem")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	const content = "hello from mcpkit interop\nsecond line\n"
	dir := workspace(t, "hello.txt", content)
	other := workspace(t, "other.txt", "the other root\n")

	rootsAsked := newEventLog()
	client := mcp.NewClient(protocol.Implementation{Name: "mcpkit-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		Roots:          []protocol.Root{{URI: fileURI(dir), Name: "workspace"}},
		RequestTimeout: testTimeout / 3,
		Middleware: []mcp.Middleware{func(next mcp.Invoker) mcp.Invoker {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				if c.Direction == mcp.Incoming && c.Method == protocol.MethodRootsList {
					rootsAsked.add(c.Method)
				}
				return next(ctx, c)
			}
		}},
	})
	stderr := newEventLog()
	cs, wire := startNodeServer(ctx, t, node, client, stderr, entry) // no directories: roots only

	if _, err := stderr.waitCount(ctx, rootsApplied, 1); err != nil {
		t.Fatalf("the server did not take our root: %v", err)
	}
	if n := len(rootsAsked.snapshot()); n != 1 {
		t.Errorf("the server asked roots/list %d times, want once", n)
	}

	allowed := textOf(callTool(ctx, t, cs, "list_allowed_directories", map[string]any{}).Content)
	if allowed != "Allowed directories:\n"+dir {
		t.Errorf("list_allowed_directories = %q, want exactly our root %q", allowed, dir)
	}

	res := callTool(ctx, t, cs, "read_text_file", map[string]string{"path": filepath.Join(dir, "hello.txt")})
	if res.IsError || textOf(res.Content) != content {
		t.Errorf("read_text_file hello.txt = %+v, want %q", res, content)
	}
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["content"] != content {
		t.Errorf("read_text_file hello.txt: structuredContent %#v, want {content: %q}", res.StructuredContent, content)
	}
	res = callTool(ctx, t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "hello.txt"), "head": 1})
	if got := textOf(res.Content); got != "hello from mcpkit interop" {
		t.Errorf("read_text_file hello.txt head 1 = %q", got)
	}

	// A file far over 64 KiB comes back on one line, twice (text and structured).
	big := strings.Repeat("ligne é 🙂 \u2028\n", 100000)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	res = callTool(ctx, t, cs, "read_text_file", map[string]string{"path": filepath.Join(dir, "big.txt")})
	if got := textOf(res.Content); got != big {
		t.Errorf("read_text_file big.txt: %d bytes, want the file's %d", len(got), len(big))
	}

	listing := textOf(callTool(ctx, t, cs, "list_directory", map[string]string{"path": dir}).Content)
	for _, want := range []string{"[FILE] hello.txt", "[FILE] big.txt", "[DIR] sub"} {
		if !strings.Contains(listing, want) {
			t.Errorf("list_directory = %q, want it to contain %q", listing, want)
		}
	}

	// A path outside the roots is refused with a tool error.
	res = callTool(ctx, t, cs, "read_text_file", map[string]string{"path": filepath.Join(other, "other.txt")})
	if !res.IsError || !strings.Contains(textOf(res.Content), "Access denied") {
		t.Errorf("reading outside the roots = %+v, want an isError result saying access denied", res)
	}

	// Replace the roots: the server hears roots/list_changed, asks again, and switches.
	if err := cs.SetRoots(ctx, []protocol.Root{{URI: fileURI(other), Name: "other"}}); err != nil {
		t.Fatalf("SetRoots: %v", err)
	}
	if _, err := stderr.waitCount(ctx, rootsApplied, 2); err != nil {
		t.Fatalf("the server did not take the new root: %v", err)
	}
	if n := len(rootsAsked.snapshot()); n != 2 {
		t.Errorf("the server asked roots/list %d times, want twice", n)
	}
	res = callTool(ctx, t, cs, "read_text_file", map[string]string{"path": filepath.Join(other, "other.txt")})
	if res.IsError || textOf(res.Content) != "the other root\n" {
		t.Errorf("read_text_file in the new root = %+v", res)
	}
	res = callTool(ctx, t, cs, "read_text_file", map[string]string{"path": filepath.Join(dir, "hello.txt")})
	if !res.IsError {
		t.Errorf("reading the old root after it was replaced = %+v, want access denied", res)
	}

	t.Run("schema", func(t *testing.T) { checkSessionSchema(t, cs.ProtocolVersion(), wire.snapshot()) })
}
