//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestShellInTerminal runs `mcpkit shell -- mcpkit serve` in a real terminal
// (tmux) and drives one session: the tool list, a call completed from the
// beginning of a tool's name, a call whose server log messages appear as they
// arrive, then quit. The screens are logged (go test -v) to be looked at.
func TestShellInTerminal(t *testing.T) {
	ctx := testkit.Context(t)
	s := startTmux(t, ctx, mcpkitBin+" shell -- "+mcpkitBin+" serve")
	screen := s.waitText("connected to mcpkit-demo", "type help", "mcp>")
	t.Logf("on open:\n%s", screen)

	s.keys("tools", "Enter")
	screen = s.waitText("echo — Echoes the message back", "message (string, required)", "mcp>")
	t.Logf("after tools:\n%s", screen)

	s.keys("clear", "Enter") // an unknown command: said so, and the session goes on
	s.waitText(`unknown command "clear"`)
	s.keys(`call echo_ {"message":"from tmux"}`, "Enter")
	s.keys(`call ech {"message":"from tmux"}`, "Enter")
	screen = s.waitText("mcpkit: tool echo_ip", `"ech" begins several tools: echo, echo_ip`)
	s.keys(`call echo {"message":"from tmux"}`, "Enter")
	screen = s.waitText("hello from tmux")
	t.Logf("after the calls:\n%s", screen)

	s.keys("log warning", "Enter", "call log {}", "Enter")
	screen = s.waitText("server log warning [demo]", "server log error [demo]", "logged")
	if strings.Contains(screen, "server log info [demo]") {
		t.Errorf("a log message below the level asked for:\n%s", screen)
	}
	t.Logf("after call log:\n%s", screen)

	s.keys("quit", "Enter")
	s.waitFor("the shell quits", func(string) bool {
		return exec.Command("tmux", "-S", s.socket, "has-session").Run() != nil
	})
}
