package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// indexTool panics with a runtime error (an index out of range).
func indexTool(_ context.Context, _ *mcp.ToolRequest, in struct {
	I int `json:"i"`
}) (string, error) {
	return []string{"a"}[in.I], nil
}

// A panicking tool: the client gets an isError result saying only that the
// tool failed (no panic value, no stack: they are the server's internals);
// the server's log gets the value and the stack, one frame per attribute,
// the panicking function first, on one record without escaped newlines.
func TestToolPanicLoggedNotShown(t *testing.T) {
	var logBuf lockedBuffer
	srv := newServer(t, &mcp.ServerOptions{Logger: slog.New(slog.NewJSONHandler(&logBuf, nil))})
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "leaky"}, func(context.Context, *mcp.ToolRequest, struct{}) (string, error) {
		panic("connecting to postgres://app:hunter22@db.internal/prod:\nrefused")
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "index"}, indexTool))
	must(t, srv.AddResource(&protocol.Resource{URI: "demo://r", Name: "r"}, func(context.Context, *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		panic("resource secret hunter22")
	}))
	cs, _ := connect(t, srv, nil)
	ctx := testkit.Context(t)

	for _, c := range []struct{ tool, args string }{{"leaky", `{}`}, {"index", `{"i":3}`}} {
		res, err := cs.CallTool(ctx, c.tool, json.RawMessage(c.args))
		must(t, err)
		if got, want := text(t, res), `tool "`+c.tool+`" failed: internal error`; !res.IsError || got != want {
			t.Errorf("%s: isError %v, %q; want %q", c.tool, res.IsError, got, want)
		}
	}
	// A panic in another handler: a JSON-RPC internal error, again without
	// the value.
	_, err := cs.ReadResource(ctx, "demo://r")
	if err == nil || strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("resources/read of a panicking handler: %v", err)
	}

	type record struct {
		Msg    string            `json:"msg"`
		Tool   string            `json:"tool"`
		Method string            `json:"method"`
		Panic  string            `json:"panic"`
		Stack  map[string]string `json:"stack"`
	}
	var recs []record
	for line := range strings.Lines(logBuf.String()) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a log line is not one JSON record: %v: %q", err, line)
		}
		if strings.Contains(r.Msg, "panicked") {
			recs = append(recs, r)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d panic records, want 3:\n%s", len(recs), logBuf.String())
	}
	for i, want := range []struct{ tool, panic, top string }{
		{"leaky", "connecting to postgres://app:hunter22@db.internal/prod:\nrefused", "mcp_test.TestToolPanicLoggedNotShown.func1 "},
		{"index", "runtime error: index out of range [3] with length 1", "mcp_test.indexTool "},
		{"", "resource secret hunter22", "mcp_test.TestToolPanicLoggedNotShown.func2 "},
	} {
		r := recs[i]
		if r.Tool != want.tool || r.Panic != want.panic {
			t.Errorf("record %d: tool %q panic %q, want %q %q", i, r.Tool, r.Panic, want.tool, want.panic)
		}
		top := r.Stack["0"]
		if !strings.Contains(top, want.top) || !strings.Contains(top, "panic_test.go:") {
			t.Errorf("record %d: the stack starts at %q, want %q in panic_test.go; stack %v", i, top, want.top, r.Stack)
		}
		if len(r.Stack) < 3 || len(r.Stack) > 49 {
			t.Errorf("record %d: %d frames", i, len(r.Stack))
		}
		for k, f := range r.Stack {
			if strings.ContainsAny(f, "\n\t") || strings.HasPrefix(f, "runtime.gopanic") {
				t.Errorf("record %d: frame %s = %q", i, k, f)
			}
		}
	}
}

// In a text log, the stack's frames are attributes of the record's one
// line: no literal \n\t.
func TestToolPanicTextLog(t *testing.T) {
	var logBuf lockedBuffer
	srv := newServer(t, &mcp.ServerOptions{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "index"}, indexTool))
	cs, _ := connect(t, srv, nil)
	_, err := cs.CallTool(testkit.Context(t), "index", json.RawMessage(`{"i":1}`))
	must(t, err)
	log := logBuf.String()
	if !strings.Contains(log, "stack.0=\"github.com/mcpkit/mcpkit/mcp_test.indexTool ") || strings.Contains(log, `\n\t`) ||
		strings.Count(strings.TrimSpace(log), "\n") != 0 {
		t.Errorf("text log:\n%s", log)
	}
}
