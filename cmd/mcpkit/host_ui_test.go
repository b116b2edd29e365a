package main

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/protocol"
)

// The result of a tool an MCP App renders is shown as its text, with a note
// that the view needs --web (the view's URI escaped); a plain tool's is not.
func TestHostUIShowsAppFallback(t *testing.T) {
	var out strings.Builder
	ui := &hostUI{out: &out}
	app := &host.Tool{Name: "show_chart", MCP: protocol.Tool{Name: "show_chart",
		Meta: protocol.Meta{"ui": map[string]any{"resourceUri": "ui://chart/\x1b[31mview.html"}}}}
	ui.onEvent(host.Event{Type: host.EventToolResult, Call: &host.Call{Name: "show_chart", Tool: app}, Result: protocol.NewToolResultText("12 readings, 3.5 °C to 9 °C")})
	ui.onEvent(host.Event{Type: host.EventToolResult, Call: &host.Call{Name: "echo", Tool: &host.Tool{Name: "echo"}}, Result: protocol.NewToolResultText("hi")})
	got := out.String()
	if !strings.Contains(got, "← show_chart: 12 readings, 3.5 °C to 9 °C\n") || !strings.Contains(got, `app view, "ui://chart/\x1b[31mview.html": open it with mcpkit host --web`) {
		t.Errorf("output:\n%s", got)
	}
	if strings.Contains(got, "\x1b") || strings.Count(got, "--web") != 1 {
		t.Errorf("an escape reached the terminal, or the note is not once:\n%q", got)
	}
}
