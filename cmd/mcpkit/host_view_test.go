package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestHostTerminalSaysAViewExists: the terminal shows a tool's text fallback
// and, when the tool has an MCP Apps view, says --web shows it.
func TestHostTerminalSaysAViewExists(t *testing.T) {
	for _, c := range []struct {
		name string
		meta protocol.Meta
		view bool
	}{
		{"with a view", protocol.Meta{"ui": map[string]any{"resourceUri": "ui://chart/view.html"}}, true},
		{"plain", nil, false},
	} {
		var out bytes.Buffer
		ui := &hostUI{out: &out}
		call := &host.Call{ID: "1", Name: "chart", Tool: &host.Tool{Name: "chart", MCP: protocol.Tool{Name: "chart", Meta: c.meta}}}
		ui.onEvent(host.Event{Type: host.EventToolResult, Call: call,
			Result: &protocol.CallToolResult{Content: []protocol.Content{{Type: "text", Text: "Lyon: 12 readings"}}}})
		got := out.String()
		if !strings.Contains(got, "Lyon: 12 readings") {
			t.Errorf("%s: no text fallback in %q", c.name, got)
		}
		if strings.Contains(got, "mcpkit host --web") != c.view {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}
