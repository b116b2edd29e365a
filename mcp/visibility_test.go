package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// visibleByClient is a catalogue per client: a client named NAME sees the
// tools, prompts, resources and templates whose name begins with "NAME_" (or,
// for URIs, "demo://NAME/"), and the shared ones beginning with "all_".
func visibleByClient(ctx context.Context, r *mcp.Request, kind mcp.FeatureKind, name string) bool {
	who := r.ClientInfo().Name
	switch kind {
	case mcp.FeatureResource, mcp.FeatureResourceTemplate:
		return strings.HasPrefix(name, "demo://"+who+"/")
	}
	return strings.HasPrefix(name, who+"_") || strings.HasPrefix(name, "all_")
}

func visibilityServer(t *testing.T) *mcp.Server {
	srv := newServer(t, &mcp.ServerOptions{Visible: visibleByClient, PageSize: 2})
	for _, name := range []string{"alice_a", "alice_b", "alice_c", "all_x", "bob_a", "bob_b"} {
		must(t, srv.AddRawTool(&protocol.Tool{Name: name}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("ran " + name)}}, nil
		}))
	}
	for _, name := range []string{"alice_p", "bob_p"} {
		must(t, srv.AddPrompt(&protocol.Prompt{Name: name}, func(ctx context.Context, r *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Description: name}, nil
		}))
	}
	for _, who := range []string{"alice", "bob"} {
		uri := "demo://" + who + "/r"
		must(t, srv.AddResource(&protocol.Resource{URI: uri, Name: who}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: uri, Text: who}}}, nil
		}))
	}
	must(t, srv.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: "demo://bob/items/{id}", Name: "items"}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: r.Params.URI, Text: "item"}}}, nil
	}))
	return srv
}

// TestVisibleFunc: with ServerOptions.Visible two clients of one server, in
// both eras, see different tools (across pages), prompts, resources and
// templates, and each is refused the other's with an error naming it.
func TestVisibleFunc(t *testing.T) {
	srv := visibilityServer(t)
	for _, v := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(v, func(t *testing.T) {
			ctx := t.Context()
			sessions := map[string]*mcp.ClientSession{}
			for _, who := range []string{"alice", "bob"} {
				cs, _, err := mcptest.TryConnect(t, srv, mcp.NewClient(protocol.Implementation{Name: who, Version: "1"}, &mcp.ClientOptions{ProtocolVersion: v}), nil)
				if err != nil {
					t.Fatal(err)
				}
				sessions[who] = cs
			}
			toolName := func(tl protocol.Tool) string { return tl.Name }
			if got := strings.Join(collect(t, sessions["alice"].Tools(ctx), toolName), " "); got != "alice_a alice_b alice_c all_x" {
				t.Errorf("alice's tools: %s", got)
			}
			if got := strings.Join(collect(t, sessions["bob"].Tools(ctx), toolName), " "); got != "all_x bob_a bob_b" {
				t.Errorf("bob's tools: %s", got)
			}
			if got := strings.Join(collect(t, sessions["bob"].Prompts(ctx), func(p protocol.Prompt) string { return p.Name }), " "); got != "bob_p" {
				t.Errorf("bob's prompts: %s", got)
			}
			if got := strings.Join(collect(t, sessions["alice"].Resources(ctx), func(r protocol.Resource) string { return r.URI }), " "); got != "demo://alice/r" {
				t.Errorf("alice's resources: %s", got)
			}
			tmpl, err := sessions["alice"].ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpl.ResourceTemplates) != 0 {
				t.Errorf("alice's templates: %+v %v", tmpl, err)
			}

			if res, err := sessions["bob"].CallTool(ctx, "bob_a", nil); err != nil || text(t, res) != "ran bob_a" {
				t.Errorf("bob calls bob_a: %v %v", res, err)
			}
			for _, c := range []struct {
				call func() error
				want string
			}{
				{func() error { _, err := sessions["bob"].CallTool(ctx, "alice_a", nil); return err }, "tool 'alice_a' is not available to this client"},
				{func() error { _, err := sessions["alice"].CallTool(ctx, "bob_b", nil); return err }, "tool 'bob_b' is not available to this client"},
				{func() error { _, err := sessions["alice"].GetPrompt(ctx, "bob_p", nil); return err }, "prompt 'bob_p' is not available"},
				{func() error { _, err := sessions["alice"].ReadResource(ctx, "demo://bob/r"); return err }, "resource 'demo://bob/r' is not available"},
				{func() error { _, err := sessions["alice"].ReadResource(ctx, "demo://bob/items/7"); return err }, "resource template 'demo://bob/items/{id}' is not available"},
			} {
				je := rpcError(t, c.call())
				if je.Code != mcp.CodeInvalidParams || je.Message != c.want && !strings.HasPrefix(je.Message, c.want) {
					t.Errorf("%d %q, want %d %q", je.Code, je.Message, mcp.CodeInvalidParams, c.want)
				}
			}
			if res, err := sessions["bob"].ReadResource(ctx, "demo://bob/items/7"); err != nil || res.Contents[0].Text != "item" {
				t.Errorf("bob reads an item: %v %v", res, err)
			}
		})
	}
}
