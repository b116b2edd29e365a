package apps_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// BenchmarkMiddleware measures what apps.Middleware adds: nothing to a method
// it does not touch (tools/call), and for tools/list the reading of the
// client's declaration and, for a plain client, the filtered copy.
func BenchmarkMiddleware(b *testing.B) {
	list := &protocol.ListToolsResult{Tools: []protocol.Tool{
		{Name: "plain"},
		{Name: "chart", Meta: protocol.Meta{"ui": apps.ToolMeta{ResourceURI: "ui://x/chart.html"}, "ui/resourceUri": "ui://x/chart.html"}},
		{Name: "poll", Meta: protocol.Meta{"ui": apps.ToolMeta{ResourceURI: "ui://x/chart.html", Visibility: []apps.Visibility{apps.App}}}},
	}}
	next := func(ctx context.Context, c *mcp.Call) (any, error) { return list, nil }
	h := apps.Middleware()(next)
	meta := func(ui bool) json.RawMessage {
		caps := protocol.ClientCapabilities{}
		if ui {
			caps.Extensions = map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}
		}
		b, _ := json.Marshal(map[string]any{"_meta": map[string]any{protocol.MetaKeyClientCapabilities: caps}})
		return b
	}
	for _, c := range []struct {
		name string
		call mcp.Call
	}{
		{"tools-call", mcp.Call{Direction: mcp.Incoming, Method: protocol.MethodToolsCall, Params: json.RawMessage(`{"name":"plain"}`)}},
		{"tools-list/ui-client", mcp.Call{Direction: mcp.Incoming, Method: protocol.MethodToolsList, Params: meta(true)}},
		{"tools-list/plain-client", mcp.Call{Direction: mcp.Incoming, Method: protocol.MethodToolsList, Params: meta(false)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				call := c.call
				if _, err := h(ctx, &call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
