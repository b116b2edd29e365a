//go:build unix

package main

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

// tmuxScreen runs a command in a detached tmux session of its own server (a
// private socket), 160×40, and drives it as a person would: keys in, screen out.
type tmuxScreen struct {
	t      *testing.T
	ctx    context.Context
	socket string
}

func startTmux(t *testing.T, ctx context.Context, command string) *tmuxScreen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed (scripts/test.sh installs it)")
		}
		t.Skip("tmux is not installed")
	}
	s := &tmuxScreen{t: t, ctx: ctx, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	s.tmux("new-session", "-d", "-x", "160", "-y", "40", "env TERM=xterm-256color "+command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.CommandContext(s.ctx, "tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// keys types keys, one tmux key name or text per argument.
func (s *tmuxScreen) keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmux("send-keys", k)
	}
}

// waitFor polls the screen until ok accepts it (a terminal offers no event to
// wait on), failing the test with the last screen when the context ends.
func (s *tmuxScreen) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var screen string
	for {
		out, _ := exec.Command("tmux", "-S", s.socket, "capture-pane", "-p").Output() // fails once the UI is gone
		if screen = string(out); ok(screen) {
			return screen
		}
		select {
		case <-s.ctx.Done():
			s.t.Fatalf("%s: not on the screen in time:\n%s", what, screen)
		case <-tick.C:
		}
	}
}

func (s *tmuxScreen) waitText(texts ...string) string {
	s.t.Helper()
	return s.waitFor(strings.Join(texts, ", "), func(screen string) bool {
		for _, x := range texts {
			if !strings.Contains(screen, x) {
				return false
			}
		}
		return true
	})
}

// TestTapViewTUI records a stdio session through `mcpkit tap`, opens it with
// `mcpkit tap view` in a real terminal (tmux), and drives the UI: the timeline, a
// detail with pretty JSON, a method filter, errors only, the analysis, quitting.
func TestTapViewTUI(t *testing.T) {
	ctx := testkit.Context(t)
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	rec := exec.CommandContext(ctx, mcpkitBin, "call", "echo", `{"message":"seen in the terminal"}`, "--", mcpkitBin, "tap", "--out", capPath, "--", mcpkitBin, "serve")
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s := startTmux(t, ctx, mcpkitBin+" tap view "+capPath)
	screen := s.waitText("[capture file]", "tools/call", "ok", " ms", "[exit] status 0")
	if !strings.Contains(screen, "C→S") {
		t.Errorf("no direction column:\n%s", screen)
	}

	s.keys("Up", "Enter") // the cursor starts on the newest entry: up to tools/call
	s.waitText("tools/call echo (id ", "latency: ", "request (C→S", `"message": "seen in the terminal"`)
	s.keys("PageDown") // the response is below
	s.waitText("response (S→C", `"text": "hello seen in the terminal"`)
	s.keys("Escape")
	s.waitText("↑↓ move")

	s.keys("/")
	s.waitText("method:")
	s.keys("tools/*", "Enter")
	screen = s.waitText("filter: method=tools/*", "1 of 3 entries")
	if strings.Contains(screen, "[exit]") {
		t.Errorf("the method filter left the exit event:\n%s", screen)
	}
	s.keys("c")
	s.waitText("filter: none", "3 of 3 entries")
	s.keys("e")
	s.waitText("filter: errors only", "0 of 3 entries")
	s.keys("c", "a")
	s.waitText("analysis", "requests")
	s.keys("Escape") // then wait: an Esc and a key at once read as Alt+key
	s.waitText("↑↓ move")
	s.keys("q")
	s.waitFor("the UI quits", func(string) bool {
		return exec.Command("tmux", "-S", s.socket, "has-session").Run() != nil
	})
}

// TestTapUINeedsTerminal: a stdio tap's UI without a terminal fails clearly, and
// before the server starts.
func TestTapUINeedsTerminal(t *testing.T) {
	ctx := testkit.Context(t)
	cmd := exec.CommandContext(ctx, mcpkitBin, "tap", "--ui", "--", mcpkitBin, "serve")
	cmd.SysProcAttr = detachedFromTerminal()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs a terminal of its own") || !strings.Contains(string(out), "/dev/tty") {
		t.Fatalf("%v: %s", err, out)
	}
}
