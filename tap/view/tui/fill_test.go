package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// bodyRows counts the timeline rows on the screen: the lines between the column
// titles and the key legend that show an entry.
func bodyRows(t *testing.T, s string) int {
	t.Helper()
	lines := strings.Split(s, "\n")
	n := 0
	for _, l := range lines[3 : len(lines)-1] {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// TestTUIFillsTheScreen: on open (the terminal's real size arrives after the
// first draw) and after a filter, the rows fill the body down to its last line,
// the cursor's row at the bottom: no half-empty screen.
func TestTUIFillsTheScreen(t *testing.T) {
	f, hub := newFeed(false, timeline.Options{})
	for i := 1; i <= 120; i++ {
		f.msg(capture.ClientToServer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool%d"}}`, i, i))
		if i%2 == 0 {
			f.msg(capture.ServerToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"bad"}}`, i))
		} else {
			f.msg(capture.ServerToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, i))
		}
	}
	hub.End()
	m := New(testkit.Context(t), hub, timeline.Filter{})
	_ = screen(m) // the first draw, at the default size
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
	s := screen(m)
	if got := bodyRows(t, s); got != m.bodyHeight() {
		t.Errorf("on open: %d rows on a body of %d lines:\n%s", got, m.bodyHeight(), s)
	}
	if !strings.Contains(s, "tools/call tool120") {
		t.Errorf("the newest call is not shown:\n%s", s)
	}
	press(m, "e") // errors only: 60 of 120
	s = screen(m)
	if got := bodyRows(t, s); got != m.bodyHeight() || !strings.Contains(s, "60 of 120") {
		t.Errorf("after a filter: %d rows on a body of %d lines:\n%s", got, m.bodyHeight(), s)
	}
	press(m, "c", "/")
	press(m, "tool11")
	press(m, "enter") // tool11, tool110…tool119: 11 rows, all shown from the top
	s = screen(m)
	if got := bodyRows(t, s); got != 11 || !strings.Contains(s, "tools/call tool11 ") {
		t.Errorf("a filter with fewer rows than lines: %d rows:\n%s", got, s)
	}
}
