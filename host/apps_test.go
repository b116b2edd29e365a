package host_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestAppOnlyToolsAreNotOfferedToTheModel: a tool whose _meta.ui.visibility
// lacks "model" is for an MCP Apps view alone and never reaches the model;
// the others (no visibility: both) do.
func TestAppOnlyToolsAreNotOfferedToTheModel(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	ok := func(context.Context, *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{}, nil
	}
	add := func(name string, meta protocol.Meta) {
		t.Helper()
		if err := srv.AddRawTool(&protocol.Tool{Name: name, InputSchema: []byte(`{"type":"object"}`), Meta: meta}, ok); err != nil {
			t.Fatal(err)
		}
	}
	add("plain", nil)
	add("both", protocol.Meta{"ui": map[string]any{"resourceUri": "ui://v", "visibility": []any{"model", "app"}}})
	add("view_only", protocol.Meta{"ui": map[string]any{"resourceUri": "ui://v", "visibility": []any{"app"}}})
	add("model_only", protocol.Meta{"ui": map[string]any{"visibility": []any{"model"}}})
	cs := connect(t, srv, nil)
	src := host.NewSessionSource(host.Server{Name: "apps", Session: func(context.Context) (*mcp.ClientSession, error) { return cs, nil }})
	tools, err := src.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"both", "model_only", "plain"}; !slices.Equal(names, want) {
		t.Errorf("offered %v, want %v", names, want)
	}
	var listed []protocol.Tool
	for tl, err := range cs.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, tl)
	}
	for _, tl := range listed {
		app := host.VisibleTo(&tl, host.ForApp)
		if want := tl.Name != "model_only"; app != want {
			t.Errorf("%s visible to apps = %v, want %v", tl.Name, app, want)
		}
		if v := host.ViewOf(&tl); (v == "ui://v") != (tl.Name == "both" || tl.Name == "view_only") {
			t.Errorf("ViewOf(%s) = %q", tl.Name, v)
		}
	}
}
