package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// appView is the ui:// view both app servers of the tests list.
const appView = "ui://chart/view.html"

// appServer is an MCP App — the view appView, show_chart (for the model and
// the view), refresh (for the view only) — that also serves the skills of
// ext/skills/testdata, with apps.Middleware as a real app server has it.
func appServer() *mcp.Server {
	srv := mcp.NewServer(protocol.Implementation{Name: "app", Version: "1"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Middleware()}})
	type none struct{}
	err := apps.AddResource(srv, &apps.Resource{URI: appView, Name: "chart", HTML: "<!doctype html><p>chart</p>"})
	if err == nil {
		err = apps.AddTool(srv, &protocol.Tool{Name: "show_chart", Description: "Shows a chart."}, apps.ToolMeta{ResourceURI: appView},
			func(context.Context, *mcp.ToolRequest, none) (string, error) { return "chart shown", nil })
	}
	if err == nil {
		err = apps.AddTool(srv, &protocol.Tool{Name: "refresh", Description: "Refreshes the chart."},
			apps.ToolMeta{ResourceURI: appView, Visibility: []apps.Visibility{apps.App}},
			func(context.Context, *mcp.ToolRequest, none) (string, error) { return "refreshed", nil })
	}
	if err != nil {
		panic(err)
	}
	sk := skills.NewServer(nil)
	if err := sk.AddDir("../ext/skills/testdata/skills", ""); err != nil {
		panic(err)
	}
	sk.Register(srv)
	return srv
}

// Two app servers and the demo behind one gateway: the gateway declares the
// Apps and Skills extensions (with tasks); the colliding view is namespaced
// as a ui:// URI on each server, and each tool's _meta.ui.resourceUri points
// at its own server's, which reads back the view; skills/list gets both
// servers' skills and skills/get reaches the one that has the skill; with
// NamingBare the demo's tools keep their names and the app tools (on both
// servers) are prefixed; with NamingPrefixed an app's call of its own tool
// name reaches its server when no other server has that name.
func TestGatewayCarriesExtensions(t *testing.T) {
	ctx := t.Context()
	gw := startGatewayOptions(t, &Options{Logger: quiet, Naming: NamingBare}, testServer("a", "app"), testServer("b", "app"), testServer("demo", "demo"))
	cs := connectClient(t, gw, &mcp.ClientOptions{Extensions: map[string]map[string]any{apps.ExtensionID: apps.ClientSettings(), skills.Extension: nil}})
	caps := cs.InitializeResult().Capabilities
	for _, id := range []string{apps.ExtensionID, skills.Extension, protocol.ExtensionTasks} {
		if _, ok := caps.Extensions[id]; !ok {
			t.Errorf("the gateway does not declare %s: %v", id, caps.Extensions)
		}
	}
	tools := map[string]protocol.Tool{}
	for tl, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tl.Name] = tl
	}
	if _, ok := tools["echo"]; !ok {
		t.Errorf("NamingBare: the demo's echo is not bare: %v", keys(tools))
	}
	for _, server := range []string{"a", "b"} {
		tl, ok := tools[server+"__show_chart"]
		if !ok {
			t.Fatalf("no %s__show_chart: %v", server, keys(tools))
		}
		ui, _ := tl.Meta["ui"].(map[string]any)
		uri, _ := ui["resourceUri"].(string)
		want := "ui://mcpkit-gateway/" + server + "/chart/view.html"
		if uri != want || tl.Meta[apps.LegacyResourceURIKey] != want {
			t.Errorf("%s's tool links %q (flat %v), want %q", server, uri, tl.Meta[apps.LegacyResourceURIKey], want)
		}
		res, err := cs.ReadResource(ctx, uri)
		if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != want || !strings.Contains(res.Contents[0].Text, "chart") {
			t.Errorf("reading %s: %+v, %v", uri, res, err)
		}
	}
	var list struct {
		Skills []map[string]any `json:"skills"`
	}
	if err := cs.Call(ctx, skills.MethodList, map[string]any{}, &list); err != nil || len(list.Skills) < 4 {
		t.Fatalf("skills/list through the gateway: %d skills, %v", len(list.Skills), err)
	}
	sc := skills.NewClient(cs)
	if !sc.Supported() {
		t.Fatal("the skills client does not see the extension")
	}
	uri, _ := list.Skills[0]["uri"].(string)
	if e, err := sc.Get(ctx, uri); err != nil || e == nil {
		t.Errorf("skills/get %s: %+v, %v", uri, e, err)
	}

	// A client without the Apps extension gets plain tools and no views, as
	// it would from the app server itself.
	plain := connectClient(t, gw, nil)
	for tl, err := range plain.Tools(ctx) {
		if err != nil || strings.HasSuffix(tl.Name, "refresh") || tl.Meta["ui"] != nil {
			t.Errorf("a plain client got %s (_meta %v), %v", tl.Name, tl.Meta, err)
		}
	}
	for r, err := range plain.Resources(ctx) {
		if err != nil || strings.HasPrefix(r.URI, "ui://") {
			t.Errorf("a plain client got the view %s, %v", r.URI, err)
		}
	}

	// NamingPrefixed: one app server; its view calls refresh by its own name.
	gw2 := startGatewayOptions(t, &Options{Logger: quiet}, testServer("a", "app"), testServer("demo", "demo"))
	cs2 := connectClient(t, gw2, nil)
	if got := call(ctx, t, cs2, "refresh", map[string]any{}); !strings.Contains(got, "refreshed") {
		t.Errorf("calling refresh by its own name: %q", got)
	}
	if got := call(ctx, t, cs2, "a__refresh", map[string]any{}); !strings.Contains(got, "refreshed") {
		t.Errorf("calling a__refresh: %q", got)
	}
	// An unknown name is still refused.
	if res, err := cs2.CallTool(ctx, "nope", map[string]any{}); err == nil && !res.IsError {
		t.Errorf("an unknown tool answered %+v", res)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// mergeLists concatenates the arrays of several answers and drops nextCursor.
func TestMergeLists(t *testing.T) {
	got, err := mergeLists([]json.RawMessage{json.RawMessage(`{"skills":[1],"nextCursor":"x","k":"first"}`), json.RawMessage(`{"skills":[2,3],"k":"second"}`)})
	if err != nil || string(got) != `{"k":"first","skills":[1,2,3]}` {
		t.Errorf("%s, %v", got, err)
	}
}

// aliasCall leaves a call of a gateway name alone, without allocating, and
// rewrites a server's own name that is an alias.
func TestAliasCall(t *testing.T) {
	g := &Gateway{}
	aliases := map[string]string{"refresh": "a__refresh"}
	g.aliases.Store(&aliases)
	plain := &mcp.Call{Params: json.RawMessage(`{"name":"a__show_chart","arguments":{"x":1}}`)}
	if n := testing.AllocsPerRun(100, func() { g.aliasCall(plain) }); n != 0 {
		t.Errorf("%v allocations for a gateway name", n)
	}
	c := &mcp.Call{Params: json.RawMessage(`{"arguments":{"name":"x"},"name":"refresh"}`)}
	if !g.aliasCall(c) || string(c.Params) != `{"arguments":{"name":"x"},"name":"a__refresh"}` {
		t.Errorf("rewritten to %s", c.Params)
	}
}
