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

// TestTUICatalog: the terminal says what the web view's servers tab says — the
// header warns of a tool name two servers list, and the analysis names both
// servers (a name with markup shown as text) and the capture's MCP App view,
// with its tools and declared domains, as links to their entries.
func TestTUICatalog(t *testing.T) {
	hub, feed, err := view.OpenFile("../testdata/apps.jsonl", timeline.Options{Schema: true})
	if err != nil {
		t.Fatal(err)
	}
	feed()
	m := New(testkit.Context(t), hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 60})
	s := screen(m)
	if first := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(first, "⚠ 1 duplicate tool name: search") {
		t.Errorf("the header does not warn of the duplicate:\n%s", first)
	}
	press(m, "a")
	s = screen(m)
	for _, want := range []string{
		"duplicate tool names (1)",
		`⚠ "search" is listed by weather and docs <b>bold</b>`,
		"MCP App views (1)",
		"ui://weather/forecast.html  from weather 1.2.0  tools: forecast  4030 bytes",
		"declares connectDomains https://api.weather.example",
		"add --web 127.0.0.1:8090 to this command",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the analysis lacks %q:\n%s", want, s)
		}
	}
	// The view's line leads to its resources/read entry.
	var viewLink string
	for i, l := range m.links {
		if strings.Contains(m.page[l.line], "ui://weather/forecast.html") {
			viewLink, m.link = l.entry, i
		}
	}
	if viewLink == "" {
		t.Fatalf("the view's line is not a link: %+v", m.links)
	}
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "resources/read") || !strings.Contains(s, "ui://weather/forecast.html") {
		t.Errorf("enter on the view's line does not show its resources/read entry:\n%s", s)
	}
}

// TestTUICatalogEscapes: a tool name a server chose reaches the terminal
// escaped, in the header's warning and in the analysis.
func TestTUICatalogEscapes(t *testing.T) {
	hub := view.NewHub(capture.Header{Mode: "stdio", Command: []string{"server"}}, true, timeline.Options{})
	f := &feed{hub: hub, t0: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x\u001b]0;pwned\u0007","inputSchema":{"type":"object"}},{"name":"x\u001b]0;pwned\u0007","inputSchema":{"type":"object"}}]}}`)
	m := New(testkit.Context(t), hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	raw := m.View().Content
	press(m, "a")
	raw += m.View().Content
	if strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\a") {
		t.Fatalf("a peer's control characters reach the terminal: %q", raw)
	}
	if s := screen(m); !strings.Contains(s, "duplicate tool names (1)") {
		t.Errorf("the duplicate is not shown:\n%s", s)
	}
}
