package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/schema"
)

// lyingServer serves tools whose results the test chooses, whatever their
// outputSchema says: the server side does not check its own output, so a client
// is the only one that can notice a mismatch. The result of "temp" is *reply.
func lyingServer(t *testing.T, reply *protocol.CallToolResult) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "lying", Version: "1"}, nil)
	out := json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"number"}},"required":["celsius"]}`)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "temp", OutputSchema: out}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		r := *reply
		return &r, nil
	}))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "plain"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("x")}, StructuredContent: map[string]any{"celsius": "hot"}}, nil
	}))
	return srv
}

func TestClientValidatesStructuredContent(t *testing.T) {
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			reply := &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("hot")}, StructuredContent: map[string]any{"celsius": "hot"}}
			cs, err := connectAuto(t, lyingServer(t, reply), &mcp.ClientOptions{ProtocolVersion: version})
			must(t, err)
			ctx := t.Context()

			// Not listed yet: the client has no schema, so nothing is checked.
			if res, err := cs.CallTool(ctx, "temp", nil); err != nil || res.StructuredContent == nil {
				t.Fatalf("before listing: %+v, %v; want the result unchecked", res, err)
			}
			_, err = cs.ListTools(ctx, nil)
			must(t, err)

			res, err := cs.CallTool(ctx, "temp", nil)
			var oe *mcp.OutputError
			var ve *schema.ValidationError
			if res != nil || !errors.As(err, &oe) || oe.Tool != "temp" || oe.Result == nil || !errors.As(err, &ve) ||
				err.Error() != `mcp: tool "temp": the result does not match the tool's outputSchema: /celsius: got string, want number` {
				t.Errorf("a wrong structuredContent: %+v, %v", res, err)
			}
			// CallToolAs reports the same error.
			if _, _, err := mcp.CallToolAs[map[string]any](ctx, cs, "temp", nil); !errors.As(err, &oe) {
				t.Errorf("CallToolAs: %v, want an OutputError", err)
			}
			// Opting out for one call.
			if res, err := cs.CallTool(ctx, "temp", nil, mcp.SkipOutputValidation()); err != nil || res == nil {
				t.Errorf("SkipOutputValidation: %+v, %v", res, err)
			}
			// A tool without an outputSchema is never checked.
			if _, err := cs.CallTool(ctx, "plain", nil); err != nil {
				t.Errorf("plain: %v", err)
			}

			*reply = protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("21")}}
			if _, err := cs.CallTool(ctx, "temp", nil); !errors.Is(err, mcp.ErrNoStructuredContent) {
				t.Errorf("no structuredContent: %v, want ErrNoStructuredContent", err)
			}
			*reply = protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("broken")}, IsError: true}
			if res, err := cs.CallTool(ctx, "temp", nil); err != nil || !res.IsError {
				t.Errorf("an isError result: %+v, %v; want it returned unchecked", res, err)
			}
			*reply = protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent("21")}, StructuredContent: map[string]any{"celsius": 21}}
			if got, _, err := mcp.CallToolAs[struct{ Celsius float64 }](ctx, cs, "temp", nil); err != nil || got.Celsius != 21 {
				t.Errorf("a matching result: %+v, %v", got, err)
			}
		})
	}
}

func TestClientOutputValidationOptOutAndRelisting(t *testing.T) {
	bad := &protocol.CallToolResult{Content: []protocol.Content{}, StructuredContent: map[string]any{"celsius": "hot"}}
	for _, version := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(version, func(t *testing.T) {
			ctx := t.Context()
			cs, err := connectAuto(t, lyingServer(t, bad), &mcp.ClientOptions{ProtocolVersion: version, SkipOutputValidation: true})
			must(t, err)
			_, err = cs.ListTools(ctx, nil)
			must(t, err)
			if _, err := cs.CallTool(ctx, "temp", nil); err != nil {
				t.Errorf("ClientOptions.SkipOutputValidation: %v", err)
			}

			// The server changes the tool: once the client lists again, the new
			// schema (none) applies.
			srv := lyingServer(t, bad)
			cs, err = connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: version})
			must(t, err)
			_, err = cs.ListTools(ctx, nil)
			must(t, err)
			if _, err := cs.CallTool(ctx, "temp", nil); err == nil {
				t.Fatal("want an OutputError before the tool changes")
			}
			srv.RemoveTools("temp")
			must(t, srv.AddRawTool(&protocol.Tool{Name: "temp"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
				return bad, nil
			}))
			_, err = cs.ListTools(ctx, nil)
			must(t, err)
			if _, err := cs.CallTool(ctx, "temp", nil); err != nil {
				t.Errorf("after the tool lost its outputSchema: %v", err)
			}
		})
	}
}

func TestClientForgetsOutputSchemasWhenTheListChanges(t *testing.T) {
	bad := &protocol.CallToolResult{Content: []protocol.Content{}, StructuredContent: map[string]any{"celsius": "hot"}}
	changed := make(chan struct{}, 4)
	srv := lyingServer(t, bad)
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy,
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} }})
	must(t, err)
	ctx := t.Context()
	_, err = cs.ListTools(ctx, nil)
	must(t, err)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "other"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return bad, nil
	}))
	<-changed // the handler runs after the schemas were dropped
	if _, err := cs.CallTool(ctx, "temp", nil); err != nil {
		t.Errorf("after tools/list_changed, before listing again: %v; want no check (the schema may be stale)", err)
	}
}

func TestClientOutputSchemaThatDoesNotCompileIsNotEnforced(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, nil)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "odd", OutputSchema: json.RawMessage(`{"type":"object","$ref":"http://example.com/x"}`)},
		func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return &protocol.CallToolResult{Content: []protocol.Content{}, StructuredContent: map[string]any{"a": 1}}, nil
		}))
	var log strings.Builder
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy, Logger: testLogger(&log)})
	must(t, err)
	_, err = cs.ListTools(t.Context(), nil)
	must(t, err)
	if _, err := cs.CallTool(t.Context(), "odd", nil); err != nil {
		t.Errorf("odd: %v", err)
	}
	if !strings.Contains(log.String(), "outputSchema does not compile") {
		t.Errorf("log = %q, want a warning", log.String())
	}
}

// testLogger logs text to w.
func testLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
