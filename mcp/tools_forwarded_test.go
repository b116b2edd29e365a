package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// lookbehindSchema is valid JSON Schema (ECMA-262 regexes have lookbehind)
// that this SDK cannot compile (Go's regexp has none).
const lookbehindSchema = `{"type":"object","properties":{"word":{"type":"string","pattern":"(?<=a)b"}},"required":["word"]}`

// echoArgs answers with the arguments it was called with, as they came.
func echoArgs(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
	return protocol.NewToolResultText(string(req.Params.Arguments)), nil
}

// TestForwardedToolSchemaVerbatim: a forwarded tool is advertised with its
// schema as given, one the SDK cannot compile included, and its calls reach
// the handler unchecked; AddRawTool refuses the same schema.
func TestForwardedToolSchemaVerbatim(t *testing.T) {
	tool := &protocol.Tool{Name: "fwd", InputSchema: json.RawMessage(lookbehindSchema)}
	srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, nil)
	if err := srv.AddRawTool(tool, echoArgs); err == nil {
		t.Fatal("AddRawTool accepted a schema it cannot compile")
	}
	if err := srv.AddForwardedTool(tool, echoArgs); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cs, _ := mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: version}), nil)
			ctx := testkit.Context(t)
			res, err := cs.ListTools(ctx, nil)
			if err != nil || len(res.Tools) != 1 {
				t.Fatalf("tools/list: %v %+v", err, res)
			}
			if !sameJSON(res.Tools[0].InputSchema, []byte(lookbehindSchema)) {
				t.Errorf("advertised schema %s, want %s verbatim", res.Tools[0].InputSchema, lookbehindSchema)
			}
			// Against the schema (word must be a string): only the server behind checks.
			got, err := cs.CallTool(ctx, "fwd", map[string]any{"word": 5})
			if err != nil || got.IsError || got.Content[0].Text != `{"word":5}` {
				t.Errorf("call: %v %+v, want the arguments passed on unchecked", err, got)
			}
		})
	}
}

// sameJSON reports whether a and b encode the same JSON value (encoding/json
// writes "<" as "\u003c").
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestInstructionsFunc: the instructions are computed for each initialize
// (legacy era) and server/discover (stateless era).
func TestInstructionsFunc(t *testing.T) {
	var n int
	srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		Instructions: "static, not used",
		InstructionsFunc: func(ctx context.Context) string {
			n++
			return "computed " + string(rune('0'+n))
		},
	})
	cs, _ := mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}), nil)
	if got := cs.InitializeResult().Instructions; got != "computed 1" {
		t.Errorf("initialize instructions %q, want computed 1", got)
	}
	cs, _ = mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: protocol.Version20260728}), nil)
	if d := cs.DiscoverResult(); d == nil || d.Instructions != "computed 2" {
		t.Errorf("server/discover result %+v, want instructions computed 2", d)
	}
}
