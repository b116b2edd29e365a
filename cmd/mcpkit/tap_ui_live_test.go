//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// TestTapUILive runs `mcpkit tap --ui -- mcpkit serve` in a real terminal (tmux)
// while a client talks to it through two named pipes, as a host would through the
// tap's standard input and output: rows appear live, the method filter and the
// detail work, q quits the UI while the tap keeps relaying, and the tap ends with
// its client.
func TestTapUILive(t *testing.T) {
	ctx := testkit.Context(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for _, p := range []string{in, out} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Read-write opens do not wait for the other end; closing toIn is the client's EOF.
	toIn, err := os.OpenFile(in, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fromOut, err := os.OpenFile(out, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = toIn.Close(); _ = fromOut.Close() })
	s := startTmux(t, ctx, mcpkitBin+" tap --ui -- "+mcpkitBin+" serve <"+in+" >"+out+" 2>"+filepath.Join(dir, "stderr"))
	s.waitText("[live]", "no messages yet")

	client := mcp.NewClient(protocol.Implementation{Name: "tui-live", Version: "1"}, nil)
	cs, err := client.Connect(ctx, stdio.NewServerConn(fromOut, toIn, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, "echo", map[string]any{"message": "seen live"}); err != nil {
		t.Fatal(err)
	}
	s.waitText("server/discover", "tools/call", " ms", "ok") // a stateless client: no initialize
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s.waitText("tools/list") // a row that came while the UI was up

	s.keys("/")
	s.waitText("method:")
	s.keys("tools/call", "Enter")
	screen := s.waitText("filter: method=tools/call", "1 of ")
	if strings.Contains(screen, "tools/list") || strings.Contains(screen, "server/discover") {
		t.Errorf("the filter left other methods:\n%s", screen)
	}
	s.keys("Enter")
	s.waitText("tools/call echo (id ", `"message": "seen live"`, "latency: ")
	s.keys("Escape")
	s.waitText("↑↓ move")
	s.keys("c")
	s.waitText("filter: none")

	s.keys("q")
	s.waitFor("the UI quits", func(screen string) bool { return !strings.Contains(screen, "mcpkit tap") })
	// The tap relays on without its UI.
	if res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "after the UI"}); err != nil || res.Content[0].Text != "hello after the UI" {
		t.Fatalf("a call after quitting the UI: %+v, %v", res, err)
	}
	_ = cs.Close() // closes the pipes: the server reads EOF, and the tap ends with it
	s.waitFor("the tap ends", func(string) bool {
		return exec.Command("tmux", "-S", s.socket, "has-session").Run() != nil
	})
}
