package host_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/llmtest"
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

// TestRunReportsProgress: with Options.Progress the server's progress
// notifications of a call reach OnEvent, in order and before its result;
// without it the calls ask for none.
func TestRunReportsProgress(t *testing.T) {
	p := providers[0]
	for _, want := range []bool{true, false} {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "c1", Name: "count", Args: `{"n":3}`})},
			llmtest.Reply{Body: p.stream("Counted.")})
		a, rec := newAgent(t, p, srv, host.Options{Progress: want})
		if _, err := a.Run(t.Context(), "Count to 3."); err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, ev := range rec.events {
			switch ev.Type {
			case host.EventToolProgress:
				seen = append(seen, fmt.Sprintf("%s %g/%g %s", ev.Call.Name, ev.Progress.Progress, ev.Progress.Total, ev.Progress.Message))
			case host.EventToolResult:
				seen = append(seen, "result")
			}
		}
		expect := []string{"result"}
		if want {
			expect = []string{"count 0/3 Step 0 of 3", "count 1/3 Step 1 of 3", "count 2/3 Step 2 of 3", "result"}
		}
		if !slices.Equal(seen, expect) {
			t.Errorf("Progress %v: events %q, want %q", want, seen, expect)
		}
	}
}
