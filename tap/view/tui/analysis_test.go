package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

func newFeed(live bool, opts timeline.Options) (*feed, *view.Hub) {
	hub := view.NewHub(capture.Header{Mode: "stdio", Command: []string{"server"}}, live, opts)
	return &feed{hub: hub, t0: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}, hub
}

// TestTUIAnalysis: the analysis screen shows the Report (latency by method and
// direction, time to first progress, failures by name), and a failure leads to
// the entry that shows it, even when the filter hides that entry.
func TestTUIAnalysis(t *testing.T) {
	f, hub := newFeed(false, timeline.Options{})
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"p"}}}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///never"}}`)
	hub.End()
	m := New(testkit.Context(t), hub, timeline.Filter{Method: "tools/*"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(m, "a")
	s := screen(m)
	for _, want := range []string{"2 requests", "1 unanswered", "failures (1)", "unanswered (1)", "  c2s resources/read id 2 got no response  → #4",
		"latency by method", "C→S  tools/call      1      0       0        0           2.00 ms", "time to first progress", "p50 1.00 ms"} {
		if !strings.Contains(s, want) {
			t.Errorf("analysis lacks %q:\n%s", want, s)
		}
	}
	press(m, "n", "enter") // the first link: the failure
	s = screen(m)
	for _, want := range []string{"resources/read file:///never (id 2)", "status: unanswered", "filter cleared to show entry 4", "filter: none"} {
		if !strings.Contains(s, want) {
			t.Errorf("the jump's detail lacks %q:\n%s", want, s)
		}
	}
	press(m, "esc", "a", "n", "n", "n", "enter") // the third link: the latency row of tools/call
	if s := screen(m); !strings.Contains(s, "tools/call count (id 1)") || !strings.Contains(s, "first progress after 1.00 ms") {
		t.Errorf("the latency row's entry:\n%s", s)
	}
}

// TestTUITokens: the token screen counts the latest tools/list off the event
// loop (a command), largest tool first, and switches format.
func TestTUITokens(t *testing.T) {
	f, hub := newFeed(true, timeline.Options{})
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ping","inputSchema":{"type":"object"}},`+
		`{"name":"search","description":"Search the documents by full text.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}}]}}`)
	m := New(testkit.Context(t), hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	cmd := m.key("T")
	if s := screen(m); !strings.Contains(s, "counting…") || cmd == nil {
		t.Fatalf("the token screen does not count in a command:\n%s", s)
	}
	m.Update(cmd()) // what the program does off its loop
	s := screen(m)
	for _, want := range []string{"openai format, o200k_base", "server (session stdio): 2 tools", "total"} {
		if !strings.Contains(s, want) {
			t.Errorf("token screen lacks %q:\n%s", want, s)
		}
	}
	if i, j := strings.Index(s, "search"), strings.Index(s, "ping"); i < 0 || j < i {
		t.Errorf("not largest first:\n%s", s)
	}
	if m.countTokens() != nil {
		t.Error("counts again with nothing new")
	}
	cmd = m.key("f")
	if cmd == nil || !strings.Contains(screen(m), "anthropic format") {
		t.Fatalf("format switch:\n%s", screen(m))
	}
	m.Update(cmd())
	if s := screen(m); !strings.Contains(s, "2 tools") || strings.Contains(s, "counting") {
		t.Errorf("anthropic count:\n%s", s)
	}
	// A new tools/list answer: the next change recounts.
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ping","inputSchema":{"type":"object"}}]}}`)
	m.refresh()
	cmd = m.countTokens()
	if cmd == nil {
		t.Fatal("a new tools/list is not counted")
	}
	m.Update(cmd())
	if s := screen(m); !strings.Contains(s, "1 tools") {
		t.Errorf("recount:\n%s", s)
	}
}

// TestTUISchemaViolation: a message that breaks the negotiated version's
// official schema is flagged in the detail pane.
func TestTUISchemaViolation(t *testing.T) {
	f, hub := newFeed(false, timeline.Options{Schema: true})
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"broken"}]}}`)
	hub.End()
	m := New(testkit.Context(t), hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	if s := screen(m); !strings.Contains(s, "ok, schema") {
		t.Errorf("the row is not flagged:\n%s", s)
	}
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "schema violations") || !strings.Contains(s, "schema: ") || !strings.Contains(s, "2025-06-18") {
		t.Errorf("the detail does not flag the violation:\n%s", s)
	}
}
