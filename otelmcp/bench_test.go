package otelmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// discard is a span processor that drops every span: the benchmark measures the
// middleware and the SDK's span bookkeeping, not an exporter.
type discard struct{}

func (discard) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discard) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error                  { return nil }
func (discard) ForceFlush(context.Context) error                { return nil }

// passthrough is middleware that does nothing: the price of leaving the mcp
// package's no-middleware fast path, whatever the middleware does.
func passthrough(next mcp.Invoker) mcp.Invoker { return next }

// BenchmarkToolCall measures one tools/call round trip over an in-memory pair:
// without middleware (the default), with do-nothing middleware on both sides, with
// the tracing middleware on both sides and every span sampled, and with the
// tracing middleware but a no-op TracerProvider, and with the metrics middleware
// (alone and with tracing) on the SDK's meter provider.
func BenchmarkToolCall(b *testing.B) {
	sampled := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discard{}), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	b.Cleanup(func() { _ = sampled.Shutdown(context.Background()) })
	reader := sdkmetric.NewManualReader()
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	b.Cleanup(func() { _ = meters.Shutdown(context.Background()) })
	metrics, err := otelmcp.Metrics(&otelmcp.MetricsOptions{MeterProvider: meters, Transport: otelmcp.TransportPipe})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		mws  []mcp.Middleware
	}{
		{"untraced", nil},
		{"passthrough-middleware", []mcp.Middleware{passthrough}},
		{"traced", []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{TracerProvider: sampled})}},
		{"noop-provider", []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{TracerProvider: noop.NewTracerProvider()})}},
		{"metrics", []mcp.Middleware{metrics}},
		{"traced+metrics", []mcp.Middleware{otelmcp.Middleware(&otelmcp.Options{TracerProvider: sampled}), metrics}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			mws := c.mws
			ctx := context.Background()
			srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Middleware: mws})
			if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
				return in.Text, nil
			}); err != nil {
				b.Fatal(err)
			}
			clientEnd, serverEnd := memory.NewPair()
			ss, err := srv.Connect(ctx, serverEnd)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{Middleware: mws}).Connect(ctx, clientEnd)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
			params := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}

			b.ReportAllocs()
			testkit.LoopCPU(b, func() {
				if _, err := cs.CallToolParams(ctx, params); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
