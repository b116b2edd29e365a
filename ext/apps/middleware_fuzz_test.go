package apps_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// FuzzMiddlewareParams feeds the middleware tools/list params it reads the
// client's declaration from (the stateless era's _meta), and tool _meta.ui
// values of any shape: it must not panic, must not change the registry's
// result, and must keep every tool a view does not own.
func FuzzMiddlewareParams(f *testing.F) {
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}}`), []byte(`{"visibility":["app"]}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":"x"}}}}}`), []byte(`{"visibility":"app"}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":null}}`), []byte(`null`))
	f.Add([]byte(`{"cursor":"x"}`), []byte(`{"resourceUri":5}`))
	f.Add([]byte(`[`), []byte(`[1,2]`))
	mw := apps.Middleware()
	f.Fuzz(func(t *testing.T, params, ui []byte) {
		var uiValue any
		_ = json.Unmarshal(ui, &uiValue)
		registry := &protocol.ListToolsResult{Tools: []protocol.Tool{
			{Name: "plain"},
			{Name: "linked", Meta: protocol.Meta{"ui": uiValue, "other": 1}},
		}}
		res, err := mw(func(ctx context.Context, c *mcp.Call) (any, error) { return registry, nil })(context.Background(),
			&mcp.Call{Direction: mcp.Incoming, Method: protocol.MethodToolsList, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		out := res.(*protocol.ListToolsResult)
		if len(registry.Tools) != 2 || registry.Tools[1].Meta["ui"] == nil && uiValue != nil || registry.Tools[1].Meta["other"] != 1 {
			t.Fatalf("the registry's result changed: %+v", registry)
		}
		if len(out.Tools) == 0 || out.Tools[0].Name != "plain" {
			t.Fatalf("the tool without a view was dropped: %+v", out.Tools)
		}
	})
}
