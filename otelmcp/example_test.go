package otelmcp_test

import (
	"context"
	"fmt"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// Trace a server and a client: the client's span travels in params._meta and
// becomes the parent of the server's span. A real program would give the
// TracerProvider an exporter (OTLP, say) instead of an in-memory recorder.
func ExampleMiddleware() {
	ctx := context.Background()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(ctx)
	tracing := otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp})

	srv := mcp.NewServer(protocol.Implementation{Name: "weather", Version: "1.0.0"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{tracing}})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "get_weather"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return "sunny", nil
	})
	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, err := mcp.NewClient(protocol.Implementation{Name: "agent", Version: "1.0.0"},
		&mcp.ClientOptions{Middleware: []mcp.Middleware{tracing}}).Connect(ctx, clientEnd)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	_, _ = cs.CallTool(ctx, "get_weather", nil)

	var client, server sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if !strings.HasPrefix(s.Name(), "tools/call") {
			continue // initialize was traced too
		}
		fmt.Println(s.SpanKind(), s.Name())
		if s.SpanKind().String() == "client" {
			client = s
		} else {
			server = s
		}
	}
	fmt.Println("server span is the client span's child:", server.Parent().SpanID() == client.SpanContext().SpanID())
	// Output:
	// server tools/call get_weather
	// client tools/call get_weather
	// server span is the client span's child: true
}

// Measure a server: each tools/call is one observation of
// mcp.server.operation.duration with the tool's name. A real program would
// give the MeterProvider a reader that exports (OTLP, Prometheus).
func ExampleMetrics() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	metrics, err := otelmcp.Metrics(&otelmcp.MetricsOptions{MeterProvider: mp, Transport: otelmcp.TransportPipe})
	if err != nil {
		panic(err)
	}

	srv := mcp.NewServer(protocol.Implementation{Name: "weather", Version: "1.0.0"},
		&mcp.ServerOptions{Middleware: []mcp.Middleware{metrics}})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "get_weather"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return "sunny", nil
	})
	clientEnd, serverEnd := memory.NewPair()
	_, _ = srv.Connect(ctx, serverEnd)
	cs, err := mcp.NewClient(protocol.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	_, _ = cs.CallTool(ctx, "get_weather", nil)
	_, _ = cs.CallTool(ctx, "get_weather", nil)

	var rm metricdata.ResourceMetrics
	_ = reader.Collect(ctx, &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name != otelmcp.ServerOperationDuration {
			continue
		}
		for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
			if tool, ok := p.Attributes.Value("gen_ai.tool.name"); ok {
				fmt.Println(m.Name, m.Unit, tool.AsString(), p.Count)
			}
		}
	}
	// Output:
	// mcp.server.operation.duration s get_weather 2
}
