package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
	"github.com/mcpkit/mcpkit/tap/view"
)

// feed builds stdio records: seq and time filled in, 1 ms apart.
type feed struct {
	hub *view.Hub
	seq uint64
	t0  time.Time
}

func (f *feed) msg(dir, body string) {
	f.seq++
	f.hub.Model().Add(&capture.Record{Seq: f.seq, Time: f.t0.Add(time.Duration(f.seq) * time.Millisecond),
		Dir: dir, Transport: capture.TransportStdio, Session: "stdio", Msg: json.RawMessage(body)})
}

func key(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// press sends keys to m; text of several characters is typed one by one.
func press(m *Model, keys ...string) {
	for _, k := range keys {
		if len([]rune(k)) > 1 && !strings.Contains("enter esc up space", k) {
			for _, r := range k {
				m.Update(key(string(r)))
			}
			continue
		}
		m.Update(key(k))
	}
}

func screen(m *Model) string { return ansi.Strip(m.View().Content) }

// TestTUILive drives the model as the program does while records arrive: each
// change is seen, the filters narrow the rows, a detail shows pretty JSON, and
// progress folds under its request.
func TestTUILive(t *testing.T) {
	ctx := testkit.Context(t)
	hub := view.NewHub(capture.Header{Mode: "stdio", Command: []string{"server"}}, true, timeline.Options{})
	f := &feed{hub: hub, t0: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
	m := New(ctx, hub, timeline.Filter{})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 30})
	wait := m.Init()
	if s := screen(m); !strings.Contains(s, "no messages yet") || !strings.Contains(s, "[live]") {
		t.Fatalf("empty screen:\n%s", s)
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- wait() }()
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"p"}}}`)
	m.Update(testkit.Receive(t, got))
	if s := screen(m); !strings.Contains(s, "tools/call count") || !strings.Contains(s, "unanswered") {
		t.Fatalf("the request is not shown live:\n%s", s)
	}
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`)
	f.msg(capture.ClientToServer, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	f.msg(capture.ServerToClient, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
	m.Update(changedMsg{})
	s := screen(m)
	for _, want := range []string{"tools/call count (+1)", "isError", "tools/list", "2 of 2 entries"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	press(m, "up", "space")
	if s := screen(m); !strings.Contains(s, "notifications/progress 1/2") {
		t.Errorf("progress not unfolded:\n%s", s)
	}
	press(m, "e")
	if s := screen(m); !strings.Contains(s, "errors only") || strings.Contains(s, "tools/list") || !strings.Contains(s, "1 of 2 entries") {
		t.Errorf("errors only:\n%s", s)
	}
	press(m, "c", "/", "tools/l*", "enter")
	if s := screen(m); !strings.Contains(s, "method=tools/l*") || strings.Contains(s, "tools/call") || !strings.Contains(s, "tools/list") {
		t.Errorf("method filter:\n%s", s)
	}
	press(m, "/", "[", "enter") // the field starts with the current filter: tools/l*[
	if s := screen(m); !strings.Contains(s, "method: tools/l*[") || !strings.Contains(s, "syntax error") {
		t.Errorf("a bad glob is refused and the input stays open:\n%s", s)
	}
	press(m, "esc", "c", ">", "5", "enter")
	if s := screen(m); !strings.Contains(s, "latency>5.00 ms") || !strings.Contains(s, "0 of 2 entries") {
		t.Errorf("latency filter:\n%s", s)
	}
	press(m, "c", "d", "up", "enter")
	s = screen(m)
	for _, want := range []string{"dir=C→S", "tools/call count (id 1)", `"progressToken": "p"`, "status: isError"} {
		if !strings.Contains(s, want) {
			t.Errorf("detail lacks %q:\n%s", want, s)
		}
	}
}
