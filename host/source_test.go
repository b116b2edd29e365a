package host_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// toolServer is a server whose tools answer "<server>/<tool>".
func toolServer(t *testing.T, name string, tools ...string) *mcp.ClientSession {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: name, Version: "1"}, nil)
	type none struct{}
	for _, tool := range tools {
		if err := mcp.AddTool(srv, &protocol.Tool{Name: tool}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
			return name + "/" + tool, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return connect(t, srv, nil)
}

// The tools of several servers get the names llm.ToolNames gives (those the
// gateway gives too): clean names kept, clashing and invalid ones suffixed,
// all distinct; a tool Allow refuses is not offered; every name calls the
// tool of the right server.
func TestSessionSourceNames(t *testing.T) {
	src := host.NewSessionSource(
		host.Server{Name: "fs", Session: fixedSession(toolServer(t, "fs", "read.file", "read_file", "secret")),
			Allow: func(tool string) bool { return tool != "secret" }},
		host.Server{Name: "x__y", Session: fixedSession(toolServer(t, "x__y", "z"))},
		host.Server{Name: "x", Session: fixedSession(toolServer(t, "x", "y__z"))},
	)
	tools, err := src.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := llm.ToolNames([]llm.ToolRef{{Server: "fs", Name: "read.file"}, {Server: "fs", Name: "read_file"},
		{Server: "x__y", Name: "z"}, {Server: "x", Name: "y__z"}})
	if len(tools) != len(want) {
		t.Fatalf("tools %+v, want the names %v", tools, want)
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		ref := llm.ToolRef{Server: tool.Server, Name: tool.MCP.Name}
		if tool.Name != want[ref] || seen[tool.Name] || !llm.ValidToolName(tool.Name) {
			t.Errorf("%v offered as %q, want %q (distinct, valid)", ref, tool.Name, want[ref])
		}
		seen[tool.Name] = true
		res, err := src.CallTool(t.Context(), tool.Name, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(res); got != ref.Server+"/"+ref.Name {
			t.Errorf("%s called %q", tool.Name, got)
		}
	}
	if want[llm.ToolRef{Server: "fs", Name: "read_file"}] != "fs__read_file" {
		t.Errorf("a clean name was changed: %v", want)
	}
	if _, err := src.CallTool(t.Context(), "fs__secret", nil); err == nil {
		t.Error("a tool Allow refuses was called")
	}
	if got := src.ToolCounts(); len(got) != 3 || got["fs"] != 2 || got["x__y"] != 1 || got["x"] != 1 {
		t.Errorf("ToolCounts = %v, want fs 2 (one refused), x__y 1, x 1", got)
	}
}
