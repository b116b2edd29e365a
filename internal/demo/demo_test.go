package demo_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// connect joins a fully capable client to the demo server; every message either side
// sends is checked against the schema of the negotiated version.
func connect(t *testing.T, version string) *mcp.ClientSession {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(protocol.Implementation{Name: "demo-test", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		Roots:           []protocol.Root{{URI: "file:///home/ada", Name: "home"}},
		CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "m1", Content: protocol.SamplingContent{protocol.NewTextContent("42")}}, nil
		},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	cs, _ := mcptest.Connect(t, srv, client, nil)
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any, opts ...mcp.RequestOption) *protocol.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), name, args, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

type toolCase struct {
	tool    string
	args    any
	want    string
	isError bool
	opts    []mcp.RequestOption
}

func TestEveryToolInEveryVersion(t *testing.T) {
	for _, v := range protocol.LegacyVersions() {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, v)
			var progress []float64
			cases := []toolCase{
				{tool: "echo", args: map[string]any{"message": "hi"}, want: "hello hi"},
				{tool: "count", args: map[string]any{"n": 3}, want: "3", opts: []mcp.RequestOption{mcp.WithProgress(func(p *protocol.ProgressParams) { progress = append(progress, p.Progress) })}},
				{tool: "test_throw", want: "test_throw always fails", isError: true},
				{tool: "echo_ip", want: "unknown"},
				{tool: "whoami", want: "anonymous"},
				{tool: "add", args: map[string]any{"a": 1.5, "b": 2}, want: `{"sum":3.5}`},
				{tool: "list_roots", want: "file:///home/ada home"},
				{tool: "touch", args: map[string]any{"uri": "demo://readme"}, want: "updated demo://readme"},
				{tool: "log", want: "logged"},
			}
			if protocol.HasElicitation(v) {
				cases = append(cases, toolCase{tool: "ask_name", want: "hello Ada"})
			}
			cases = append(cases, toolCase{tool: "sample", args: map[string]any{"prompt": "?"}, want: "42 (model m1)"})
			for _, c := range cases {
				res := call(t, cs, c.tool, c.args, c.opts...)
				if res.IsError != c.isError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, c.want) {
					t.Errorf("%s = %+v, want %q (isError %v)", c.tool, res, c.want, c.isError)
				}
			}
			if len(progress) != 3 || progress[0] != 0 || progress[2] != 2 {
				t.Errorf("count progress = %v", progress)
			}
		})
	}
}

func TestResourcesPromptsCompletions(t *testing.T) {
	cs := connect(t, protocol.LatestLegacy)
	ctx := context.Background()
	var uris []string
	for r, err := range cs.Resources(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if !strings.HasPrefix(strings.Join(uris, " "), "demo://logo.png demo://readme test://") {
		t.Errorf("resources %v", uris)
	}
	res, err := cs.ReadResource(ctx, "demo://items/42")
	if err != nil || res.Contents[0].Text != "the answer" {
		t.Fatalf("template read: %+v %v", res, err)
	}
	if _, err := cs.ReadResource(ctx, "demo://items/7"); err == nil {
		t.Error("missing item read succeeded")
	}
	logo, err := cs.ReadResource(ctx, "demo://logo.png")
	if err != nil || len(logo.Contents[0].Blob) == 0 || logo.Contents[0].MimeType != "image/png" {
		t.Fatalf("logo: %+v %v", logo, err)
	}
	p, err := cs.GetPrompt(ctx, "describe_logo", nil)
	if err != nil || len(p.Messages) != 3 {
		t.Fatalf("describe_logo: %+v %v", p, err)
	}
	comp, err := cs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "greet"}, Argument: protocol.CompleteArgument{Name: "style", Value: "p"}})
	if err != nil || strings.Join(comp.Completion.Values, ",") != "pirate" {
		t.Fatalf("complete: %+v %v", comp, err)
	}
	comp, err = cs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypeResource, URI: "demo://items/{id}"}, Argument: protocol.CompleteArgument{Name: "id", Value: "4"}})
	if err != nil || strings.Join(comp.Completion.Values, ",") != "42" {
		t.Fatalf("complete template: %+v %v", comp, err)
	}
}
