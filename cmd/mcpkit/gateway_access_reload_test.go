package main

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// accessClient is a legacy session on the gateway as one principal, with the
// list_changed notifications it receives in the order they came.
type accessClient struct {
	cs      *mcp.ClientSession
	changed chan string
}

func connectAccessClient(t *testing.T, ctx context.Context, base, token string) *accessClient {
	t.Helper()
	c := &accessClient{changed: make(chan string, 16)}
	// Incoming notifications pass the client's middleware in order, on its
	// read loop (the handlers run apart).
	record := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			if call.Direction == mcp.Incoming && strings.HasSuffix(call.Method, "/list_changed") {
				c.changed <- call.Method
			}
			return next(ctx, call)
		}
	}
	client := mcp.NewClient(protocol.Implementation{Name: "access-test", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: protocol.LatestLegacy,
		Middleware:      []mcp.Middleware{record},
	})
	cs, err := mcpkit.ConnectURL(ctx, client, base+"/mcp", &mcpkit.ConnectOptions{Header: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	c.cs = cs
	return c
}

// lists returns the tool and the prompt names the principal sees.
func (c *accessClient) lists(t *testing.T, ctx context.Context) (tools, prompts string) {
	t.Helper()
	tl, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tn, pn []string
	for _, x := range tl.Tools {
		tn = append(tn, x.Name)
	}
	for _, x := range pl.Prompts {
		pn = append(pn, x.Name)
	}
	slices.Sort(tn)
	slices.Sort(pn)
	return strings.Join(tn, " "), strings.Join(pn, " ")
}

// next returns the next list_changed the client received (30 s at most).
func (c *accessClient) next(t *testing.T) string {
	t.Helper()
	select {
	case m := <-c.changed:
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("no list_changed within 30s")
		return ""
	}
}

// TestGatewayAccessReload: the --access file is reloaded when it changes
// (--watch) and on SIGHUP, and only the sessions whose view changed hear
// list_changed. Two principals list their tools and prompts; a change of
// alice's tools sends tools/list_changed to alice, and her next tools/list
// shows the new view; a change of bob's prompts then sends bob
// prompts/list_changed — his first notification, so the first change sent
// him nothing. A SIGHUP that changes nothing, and a broken file (which keeps
// the running rules, said in one line), send nothing either: alice's next
// notification is the prompts/list_changed of the last change.
func TestGatewayAccessReload(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	const alice, bob = "reload-alice-0123456789ab", "reload-bob-0123456789abcd"
	tokens := writeFile(t, "tokens", "alice:"+alice+"\nbob:"+bob+"\n")
	access := filepath.Join(t.TempDir(), "access.json")
	writeAccess := func(rules string) { writeFileAtomic(t, access, []byte(`{"rules": [`+rules+`]}`)) }
	writeAccess(`{"principals": ["token:alice"], "servers": ["a"]}, {"principals": ["token:bob"], "tools": ["b__echo"], "prompts": ["b__*"]}`)
	cfg := writeFile(t, "mcp.json", `{"mcpServers":{"a":{"command":"`+mcpkitBin+`","args":["serve"]},"b":{"command":"`+mcpkitBin+`","args":["serve"]}}}`)
	g := startReloadGateway(t, cfg, "--start-timeout", "30s", "--auth-token-file", tokens, "--access", access, "--watch", "50ms")

	a, b := connectAccessClient(t, ctx, g.base, alice), connectAccessClient(t, ctx, g.base, bob)
	if tools, prompts := a.lists(t, ctx); !strings.Contains(tools, "a__whoami") || strings.Contains(tools, "b__") || prompts != "a__describe_logo a__greet" {
		t.Fatalf("alice sees %q, %q", tools, prompts)
	}
	if tools, prompts := b.lists(t, ctx); tools != "b__echo" || prompts != "b__describe_logo b__greet" {
		t.Fatalf("bob sees %q, %q", tools, prompts)
	}

	// alice keeps her prompts and loses every tool but a__echo.
	writeAccess(`{"principals": ["token:alice"], "tools": ["a__echo"], "prompts": ["a__*"]}, {"principals": ["token:bob"], "tools": ["b__echo"], "prompts": ["b__*"]}`)
	g.waitLine(t, "gateway: access rules reloaded", `trigger="file changed"`)
	if m := a.next(t); m != protocol.NotificationToolsListChanged {
		t.Errorf("alice, whose tools changed, got %s", m)
	}
	if tools, prompts := a.lists(t, ctx); tools != "a__echo" || prompts != "a__describe_logo a__greet" {
		t.Errorf("alice sees after the change %q, %q", tools, prompts)
	}

	// bob loses his prompts.
	writeAccess(`{"principals": ["token:alice"], "tools": ["a__echo"], "prompts": ["a__*"]}, {"principals": ["token:bob"], "tools": ["b__echo"]}`)
	g.waitLine(t, "gateway: access rules reloaded", `trigger="file changed"`)
	if m := b.next(t); m != protocol.NotificationPromptsListChanged {
		t.Errorf("bob's first notification is %s, want the prompts/list_changed of his change", m)
	}
	if tools, prompts := b.lists(t, ctx); tools != "b__echo" || prompts != "" {
		t.Errorf("bob sees after the change %q, %q", tools, prompts)
	}

	// SIGHUP reloads the same rules: nobody's view changes.
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	g.waitLine(t, "gateway: access rules reloaded", "trigger=SIGHUP")

	// A broken file keeps the running rules.
	writeFileAtomic(t, access, []byte(`{"rules": [{"principals": ["nobody"]}]}`))
	line := g.waitLine(t, "gateway: access rules not reloaded, keeping the running ones", `trigger="file changed"`)
	if !strings.Contains(line, `principal \"nobody\"`) {
		t.Errorf("the refusal does not say why: %q", line)
	}
	if tools, prompts := a.lists(t, ctx); tools != "a__echo" || prompts != "a__describe_logo a__greet" {
		t.Errorf("alice sees after a broken file %q, %q", tools, prompts)
	}

	// alice loses her prompts: her next notification says so, and is the
	// first since the tools/list_changed of her own change.
	writeAccess(`{"principals": ["token:alice"], "tools": ["a__echo"]}, {"principals": ["token:bob"], "tools": ["b__echo"]}`)
	g.waitLine(t, "gateway: access rules reloaded", `trigger="file changed"`)
	if m := a.next(t); m != protocol.NotificationPromptsListChanged {
		t.Errorf("alice's next notification is %s, want the prompts/list_changed of her change", m)
	}
	if _, prompts := a.lists(t, ctx); prompts != "" {
		t.Errorf("alice's prompts after the change: %q", prompts)
	}
	if _, err := b.cs.CallTool(ctx, "b__echo", map[string]any{"message": "still"}); err != nil {
		t.Errorf("bob's call after the reloads: %v", err)
	}
}
