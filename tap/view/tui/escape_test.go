package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// TestTUIEscapesPeerStrings: a method name, an error message and a session id a
// peer chose reach the screen escaped, in the list, the detail and the analysis:
// no OSC (window title, clipboard), no BEL, no screen clear, no bidi override.
func TestTUIEscapesPeerStrings(t *testing.T) {
	f, hub := newFeed(false, timeline.Options{})
	const evil = `\u001b]0;PWNED\u0007\u001b[2J\u202etool`
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"`+evil+`"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"`+evil+`"}}`)
	hub.End()
	m := New(testkit.Context(t), hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	check := func(where, s string) {
		t.Helper()
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\u202e"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s: the screen holds %q raw:\n%q", where, bad, s)
			}
		}
		if !strings.Contains(s, `\x1b]0;PWNED`) {
			t.Errorf("%s: the escaped method is not shown:\n%s", where, s)
		}
	}
	check("list", screen(m))
	press(m, "enter")
	check("detail", screen(m))
}
