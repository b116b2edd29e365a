package otelmcp_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// recorder returns a tracer provider that keeps every ended span in memory.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

// connect joins a client to srv over an in-memory pair whose messages are checked
// against the official schemas (so injected _meta must be valid MCP too).
func connect(t *testing.T, srv *mcp.Server, clientOpts *mcp.ClientOptions, serverCtx context.Context) (*mcp.ClientSession, *mcp.ServerSession) {
	t.Helper()
	return mcptest.Connect(t, srv, mcptest.NewClient(clientOpts), &mcptest.Options{ServerContext: serverCtx})
}

// newServer returns a server traced with tp (when tp is not nil) and the extra
// middleware, which run inside the tracing middleware.
func newServer(tp trace.TracerProvider, opts *otelmcp.Options, extra ...mcp.Middleware) *mcp.Server {
	var mws []mcp.Middleware
	if tp != nil {
		o := otelmcp.Options{}
		if opts != nil {
			o = *opts
		}
		o.TracerProvider = tp
		mws = append(mws, otelmcp.Middleware(&o))
	}
	mws = append(mws, extra...)
	return mcp.NewServer(protocol.Implementation{Name: "test-server", Version: "1.0"}, &mcp.ServerOptions{Middleware: mws})
}

// tracedClient returns client options traced with tp.
func tracedClient(tp trace.TracerProvider, opts *otelmcp.Options) *mcp.ClientOptions {
	o := otelmcp.Options{}
	if opts != nil {
		o = *opts
	}
	o.TracerProvider = tp
	// Pinned to a legacy session: several tests trace server-to-client requests,
	// which only the legacy era sends (the stateless era has its own test).
	return &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy, Middleware: []mcp.Middleware{otelmcp.Middleware(&o)}}
}

// findSpan returns the one ended span with the name and kind, failing the test if
// there is not exactly one.
func findSpan(t *testing.T, rec *tracetest.SpanRecorder, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name && s.SpanKind() == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range rec.Ended() {
			names = append(names, s.SpanKind().String()+" "+s.Name())
		}
		t.Fatalf("%d %s spans named %q; ended spans: %q", len(found), kind, name, names)
	}
	return found[0]
}

// countSpans counts ended spans with the name.
func countSpans(rec *tracetest.SpanRecorder, name string) int {
	n := 0
	for _, s := range rec.Ended() {
		if s.Name() == name {
			n++
		}
	}
	return n
}

// attr returns the span's string attribute key, and whether it is set.
func attr(s sdktrace.ReadOnlySpan, key string) (string, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == attribute.Key(key) {
			return kv.Value.String(), true
		}
	}
	return "", false
}

// wantAttrs checks string attributes of a span.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := attr(s, k)
		if !ok {
			t.Errorf("%s %q: attribute %s missing", s.SpanKind(), s.Name(), k)
		} else if got != v {
			t.Errorf("%s %q: %s = %q, want %q", s.SpanKind(), s.Name(), k, got, v)
		}
	}
}

// wantChild checks that child's parent is parent (and that both are in one trace).
func wantChild(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Errorf("%q is in trace %s, %q in %s", child.Name(), child.SpanContext().TraceID(), parent.Name(), parent.SpanContext().TraceID())
	}
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("%q has parent %s, want %q (%s)", child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

// afterCall returns middleware that sends each finished call of the method on ch;
// installed outside the tracing middleware, it reports calls whose span has ended.
func afterCall(method string, ch chan<- *mcp.Call) mcp.Middleware {
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			res, err := next(ctx, call)
			if call.Method == method {
				ch <- call
			}
			return res, err
		}
	}
}
