package mcp_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// collect gathers the names an iterator yields, failing the test on an error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error], name func(T) string) []string {
	t.Helper()
	var names []string
	for item, err := range seq {
		must(t, err)
		names = append(names, name(item))
	}
	return names
}

// TestEveryListPagesInBothEras checks the four list methods, which share one
// server-side and one client-side implementation: pages of PageSize in name
// order, iterators that follow the cursors to the end, and a bad cursor
// refused with invalid params.
func TestEveryListPagesInBothEras(t *testing.T) {
	srv := newServer(t, &mcp.ServerOptions{PageSize: 2})
	var want []string
	for _, n := range []string{"e", "c", "a", "d", "b"} { // added out of order
		want = append(want, n)
		must(t, srv.AddRawTool(&protocol.Tool{Name: n}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText(n), nil
		}))
		must(t, srv.AddResource(&protocol.Resource{URI: "file:///" + n, Name: n},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewTextResourceContents(req.Params.URI, "text/plain", n)}}, nil
			}))
		must(t, srv.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: "t" + n + "://{x}", Name: n},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewTextResourceContents(req.Params.URI, "text/plain", n)}}, nil
			}))
		must(t, srv.AddPrompt(&protocol.Prompt{Name: n}, func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: protocol.RoleUser, Content: protocol.NewTextContent(n)}}}, nil
		}))
	}
	slices.Sort(want)
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
			must(t, err)
			ctx := t.Context()

			first, err := cs.ListTools(ctx, nil)
			must(t, err)
			if len(first.Tools) != 2 || first.Tools[0].Name != "a" || first.NextCursor == "" {
				t.Errorf("first page of tools: %+v", first)
			}
			second, err := cs.ListTools(ctx, &protocol.ListToolsParams{Cursor: first.NextCursor})
			must(t, err)
			if len(second.Tools) != 2 || second.Tools[0].Name != "c" {
				t.Errorf("second page of tools: %+v", second)
			}

			for kind, got := range map[string][]string{
				"tools":     collect(t, cs.Tools(ctx), func(x protocol.Tool) string { return x.Name }),
				"resources": collect(t, cs.Resources(ctx), func(x protocol.Resource) string { return x.Name }),
				"templates": collect(t, cs.ResourceTemplates(ctx), func(x protocol.ResourceTemplate) string { return x.Name }),
				"prompts":   collect(t, cs.Prompts(ctx), func(x protocol.Prompt) string { return x.Name }),
			} {
				if !slices.Equal(got, want) {
					t.Errorf("%s iterated %v, want %v", kind, got, want)
				}
			}

			bad := &protocol.PaginatedParams{Cursor: "!!not-a-cursor"}
			for kind, list := range map[string]func() error{
				"tools":     func() error { _, err := cs.ListTools(ctx, bad); return err },
				"resources": func() error { _, err := cs.ListResources(ctx, bad); return err },
				"templates": func() error { _, err := cs.ListResourceTemplates(ctx, bad); return err },
				"prompts":   func() error { _, err := cs.ListPrompts(ctx, bad); return err },
			} {
				var je *jsonrpc.Error
				if err := list(); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("%s with a bad cursor: %v, want invalid params", kind, err)
				}
			}
		})
	}
}

// TestIteratorStopsAtTheFirstError checks that an iterator yields a failed
// page's error once and stops.
func TestIteratorStopsAtTheFirstError(t *testing.T) {
	srv := newServer(t, nil)
	cs, _ := connect(t, srv, nil)
	must(t, cs.Close())
	calls := 0
	for tool, err := range cs.Tools(t.Context()) {
		calls++
		if err == nil || tool.Name != "" {
			t.Errorf("yielded %+v, %v after the session closed; want only an error", tool, err)
		}
	}
	if calls != 1 {
		t.Errorf("the iterator yielded %d times, want once", calls)
	}
}
