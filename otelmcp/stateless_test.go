package otelmcp_test

import (
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// A stateless 2026-07-28 request carries its trace context in _meta next to the
// per-request protocol fields, exactly as the specification's example shows.
func TestStatelessRequestContinuesTrace(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	c, s := memory.NewPair()
	ss, err := srv.Connect(testkit.Context(t), wirecheck.Wrap(t, s, wirecheck.Server))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })

	const traceID, spanID = "0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7"
	msg := `{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"name":"fail","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"00-` + traceID + `-` + spanID + `-01"}}}`
	ctx := testkit.Context(t)
	if err := c.Write(ctx, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp), `"isError":true`) {
		t.Fatalf("response %s, want an isError result", resp)
	}

	span := findSpan(t, rec, "tools/call fail", trace.SpanKindServer)
	if got := span.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("trace id %s, want %s", got, traceID)
	}
	if got := span.Parent().SpanID().String(); got != spanID {
		t.Errorf("parent span id %s, want %s", got, spanID)
	}
	wantAttrs(t, span, map[string]string{
		"mcp.protocol.version": "2026-07-28",
		"jsonrpc.request.id":   "req-7",
		"error.type":           "tool_error",
	})
}
