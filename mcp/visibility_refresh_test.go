package mcp_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// rulesServer is a server whose VisibleFunc gives each principal (the
// transport's, as an HTTP front names it) the tools and prompts its rule
// lists; the rules change while it runs.
type rulesServer struct {
	srv   *mcp.Server
	rules atomic.Pointer[map[string][]string]
}

func newRulesServer(t *testing.T, rules map[string][]string) *rulesServer {
	rs := &rulesServer{}
	rs.rules.Store(&rules)
	rs.srv = newServer(t, &mcp.ServerOptions{Visible: func(ctx context.Context, _ *mcp.Request, _ mcp.FeatureKind, name string) bool {
		return slices.Contains((*rs.rules.Load())[transport.PrincipalFrom(ctx)], name)
	}})
	for _, name := range []string{"t1", "t2", "t3"} {
		must(t, rs.srv.AddRawTool(&protocol.Tool{Name: name}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{}, nil
		}))
	}
	must(t, rs.srv.AddPrompt(&protocol.Prompt{Name: "p1"}, func(ctx context.Context, r *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}))
	must(t, rs.srv.AddResource(&protocol.Resource{URI: "demo://marker", Name: "marker"}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{}, nil
	}))
	return rs
}

func (rs *rulesServer) set(rules map[string][]string) {
	rs.rules.Store(&rules)
	rs.srv.RefreshVisibility()
}

// principalSession connects a raw client end to the server as principal: its
// session's requests carry the principal, as the HTTP transports' do.
func principalSession(t *testing.T, srv *mcp.Server, principal string) (transport.Conn, *mcp.ServerSession) {
	t.Helper()
	c, s := memory.NewPair()
	ss, err := srv.Connect(transport.WithPrincipal(testkit.Context(t), principal), wirecheck.Wrap(t, s, wirecheck.Server))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })
	return c, ss
}

// listNames sends a list request and returns the names it answered with.
func listNames(t *testing.T, c transport.Conn, method, params string) string {
	t.Helper()
	res := readJSON(t, writeRaw(t, c, `{"jsonrpc":"2.0","id":"l","method":"`+method+`","params":`+params+`}`))
	r, _ := res["result"].(map[string]any)
	var names []string
	for _, key := range []string{"tools", "prompts"} {
		items, _ := r[key].([]any)
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
	}
	return strings.Join(names, " ")
}

func writeRaw(t *testing.T, c transport.Conn, msg string) transport.Conn {
	t.Helper()
	must(t, c.Write(testkit.Context(t), []byte(msg)))
	return c
}

// TestRefreshVisibilityLegacy: two legacy sessions with different
// principals list the tools; a rule change that affects only alice's view
// sends tools/list_changed to alice alone (bob's next message is the marker
// the test sends after the refresh, so nothing came before it), and alice's
// next tools/list shows the new view. A refresh that changes nothing, or a
// change of a list she has not been shown (prompts), tells nobody.
func TestRefreshVisibilityLegacy(t *testing.T) {
	rs := newRulesServer(t, map[string][]string{"alice": {"t1", "t2"}, "bob": {"t1", "t3"}})
	conns := map[string]transport.Conn{}
	sessions := map[string]*mcp.ServerSession{}
	for _, who := range []string{"alice", "bob", "carol"} {
		c, ss := principalSession(t, rs.srv, who)
		roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protocol.LatestLegacy+`","capabilities":{},"clientInfo":{"name":"`+who+`","version":"1"}}}`)
		writeRaw(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		conns[who], sessions[who] = c, ss
	}
	if got := listNames(t, conns["alice"], "tools/list", "{}"); got != "t1 t2" {
		t.Fatalf("alice's tools: %q", got)
	}
	if got := listNames(t, conns["bob"], "tools/list", "{}"); got != "t1 t3" {
		t.Fatalf("bob's tools: %q", got)
	}
	// next returns the method of who's next message, after a marker sent
	// now: "marker" when nothing came before it.
	next := func(who string) string {
		t.Helper()
		must(t, sessions[who].Notify(testkit.Context(t), "notifications/message", &protocol.LoggingMessageParams{Level: protocol.LevelInfo, Data: "marker"}))
		m := readJSON(t, conns[who])
		if m["method"] == "notifications/message" {
			return "marker"
		}
		if got := readJSON(t, conns[who]); got["method"] != "notifications/message" {
			t.Fatalf("%s: after %v, want the marker, got %v", who, m["method"], got)
		}
		return m["method"].(string)
	}

	rs.set(map[string][]string{"alice": {"t1", "t3"}, "bob": {"t1", "t3"}, "carol": {"t1"}})
	if got := next("alice"); got != "notifications/tools/list_changed" {
		t.Errorf("alice, whose view changed, got %s", got)
	}
	for _, who := range []string{"bob", "carol"} { // bob's view is the same; carol never listed
		if got := next(who); got != "marker" {
			t.Errorf("%s was sent %s", who, got)
		}
	}
	if got := listNames(t, conns["alice"], "tools/list", "{}"); got != "t1 t3" {
		t.Errorf("alice's tools after the change: %q", got)
	}

	// Nothing changed: nobody hears of it. A prompt alice was never shown
	// becomes visible: nothing to tell her either.
	rs.set(map[string][]string{"alice": {"t1", "t3", "p1"}, "bob": {"t1", "t3"}})
	for _, who := range []string{"alice", "bob"} {
		if got := next(who); got != "marker" {
			t.Errorf("%s was sent %s", who, got)
		}
	}
	// Told once: a second change before alice lists again is not sent again.
	if got := listNames(t, conns["bob"], "prompts/list", "{}"); got != "" {
		t.Errorf("bob's prompts: %q", got)
	}
	rs.set(map[string][]string{"alice": {"t1"}, "bob": {"t1", "t3", "p1"}})
	if got := next("alice"); got != "notifications/tools/list_changed" {
		t.Errorf("alice got %s", got)
	}
	if got := next("bob"); got != "notifications/prompts/list_changed" {
		t.Errorf("bob, whose prompts changed, got %s", got)
	}
	rs.set(map[string][]string{"alice": {}, "bob": {"t1", "t3", "p1"}})
	if got := next("alice"); got != "marker" {
		t.Errorf("alice, told already and not listed since, was sent %s", got)
	}
}

// TestRefreshVisibilityListen: in the stateless era list changes travel on
// subscriptions/listen streams; a refresh sends tools/list_changed on the
// stream of the principal whose view changed, and on no other (bob's next
// message is the resources/updated the test causes after the refresh).
func TestRefreshVisibilityListen(t *testing.T) {
	rs := newRulesServer(t, map[string][]string{"alice": {"t1", "t2", "demo://marker"}, "bob": {"t1", "demo://marker"}})
	conns := map[string]transport.Conn{}
	for _, who := range []string{"alice", "bob"} {
		c, _ := principalSession(t, rs.srv, who)
		writeRaw(t, c, `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":`+statelessMeta(`{}`)+
			`,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["demo://marker"]}}}`)
		if ack := readJSON(t, c); ack["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("%s: %v", who, ack)
		}
		conns[who] = c
	}
	rs.set(map[string][]string{"alice": {"t1", "demo://marker"}, "bob": {"t1", "demo://marker"}})
	rs.srv.NotifyResourceUpdated(testkit.Context(t), "demo://marker")
	if m := readJSON(t, conns["alice"]); m["method"] != "notifications/tools/list_changed" || subscriptionID(m) != "sub" {
		t.Errorf("alice, whose view changed: %v", m)
	}
	if m := readJSON(t, conns["bob"]); m["method"] != "notifications/resources/updated" {
		t.Errorf("bob, whose view did not change: %v", m)
	}
	// A stateless tools/list of alice's shows the new view.
	c, _ := principalSession(t, rs.srv, "alice")
	if got := listNames(t, c, "tools/list", `{"_meta":`+statelessMeta(`{}`)+`}`); got != "t1" {
		t.Errorf("alice's tools after the change: %q", got)
	}
}
