//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestTapUIByHandQuits runs the README's line `mcpkit tap --ui -- mcpkit serve`
// by hand in a terminal (tmux): standard input is that terminal, so the UI owns
// the keys and q quits it, which ends the server's input and so the tap (before
// issue 21 the relay read half the keys and nothing quit the UI).
func TestTapUIByHandQuits(t *testing.T) {
	ctx := testkit.Context(t)
	out := filepath.Join(t.TempDir(), "cap.jsonl")
	s := startTmux(t, ctx, fmt.Sprintf("sh -c '%s tap --ui --out %s -- %s serve; echo tap-exited-$?; sleep 60'", mcpkitBin, out, mcpkitBin))
	s.waitText("[live]", "no messages yet", "q quit")
	s.keys("q")
	s.waitText("tap-exited-0")
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the capture: %v", err)
	}
}

// TestTapViewFillsTheTerminal opens a capture of 300 calls (after initialize) in the terminal UI:
// on open, after errors-only and after a method filter the rows reach the key
// legend (no half-empty screen), the newest row last.
func TestTapViewFillsTheTerminal(t *testing.T) {
	ctx := testkit.Context(t)
	path := filepath.Join(t.TempDir(), "cap.jsonl")
	var b strings.Builder
	b.WriteString(`{"format":"mcpkit-tap/1","t":"2026-07-28T12:00:00Z","mode":"stdio","command":["server"],"redacted":true}` + "\n")
	seq := 0
	rec := func(dir, msg string) {
		seq++
		fmt.Fprintf(&b, `{"seq":%d,"t":"2026-07-28T12:00:%02d.%03dZ","dir":"%s","transport":"stdio","session":"stdio","msg":%s}`+"\n", seq, seq/1000, seq%1000, dir, msg)
	}
	rec("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	rec("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	for i := 1; i <= 300; i++ {
		rec("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool%d"}}`, i, i))
		if i%2 == 0 {
			rec("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"bad"}}`, i))
		} else {
			rec("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, i))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, ctx, mcpkitBin+" tap view "+path)
	full := func(what, newest string) {
		t.Helper()
		screen := s.waitText("q quit")
		lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		// 40 lines: header, filter, column titles, 36 rows, the legend.
		if len(lines) != 40 || strings.TrimSpace(lines[38]) == "" || !strings.Contains(lines[38], newest) {
			t.Errorf("%s: the rows do not reach the legend (%d lines):\n%s", what, len(lines), screen)
		}
	}
	s.waitText("301 of 301 entries")
	full("on open", "tool300")
	s.keys("e")
	s.waitText("150 of 301 entries")
	full("errors only", "tool300")
	s.keys("c", "/")
	s.waitText("method:")
	s.keys("tool2", "Enter")
	s.waitText("filter: method=tool2", "111 of 301") // tool2, tool20…29, tool200…299
	full("a method filter", "tool299")
}
