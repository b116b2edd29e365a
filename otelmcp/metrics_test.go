package otelmcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// metered returns a meter provider read by hand, and metrics middleware on it.
func metered(t *testing.T, opts otelmcp.MetricsOptions) (*sdkmetric.ManualReader, mcp.Middleware) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	opts.MeterProvider = mp
	mw, err := otelmcp.Metrics(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return reader, mw
}

// histogramPoints returns the data points of the histogram called name.
func histogramPoints(t *testing.T, reader *sdkmetric.ManualReader, name string) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("%s unit %q, want s", name, m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a histogram", name, m.Data)
			}
			return h.DataPoints
		}
	}
	return nil
}

// point returns the point whose attributes include want, failing if none has.
func point(t *testing.T, points []metricdata.HistogramDataPoint[float64], want map[string]string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
next:
	for _, p := range points {
		for k, v := range want {
			if got, ok := p.Attributes.Value(attribute.Key(k)); !ok || got.AsString() != v {
				continue next
			}
		}
		return p
	}
	var sets []string
	for _, p := range points {
		sets = append(sets, p.Attributes.Encoded(attribute.DefaultEncoder()))
	}
	t.Fatalf("no point with %v among %q", want, sets)
	return metricdata.HistogramDataPoint[float64]{}
}

// Both sides measure a tool call, a failed tool and a prompt with the
// conventions' names and attributes, and the sessions' durations once they end.
func TestMetricsOperationsAndSessions(t *testing.T) {
	serverReader, serverMW := metered(t, otelmcp.MetricsOptions{Transport: otelmcp.TransportPipe})
	clientReader, clientMW := metered(t, otelmcp.MetricsOptions{Transport: otelmcp.TransportPipe})
	srv := newServer(nil, nil, serverMW)
	echoServer(t, srv, nil)
	cs, ss := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy, Middleware: []mcp.Middleware{clientMW}}, nil)
	ctx := testkit.Context(t)

	for range 3 {
		if _, err := cs.CallTool(ctx, "echo", map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := cs.CallTool(ctx, "fail", nil); err != nil || !res.IsError {
		t.Fatalf("fail: %+v, %v", res, err)
	}
	if _, err := cs.GetPrompt(ctx, "review", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, "no-such-prompt", nil); err == nil {
		t.Fatal("an unknown prompt was served")
	}

	for side, reader := range map[string]*sdkmetric.ManualReader{otelmcp.ServerOperationDuration: serverReader, otelmcp.ClientOperationDuration: clientReader} {
		points := histogramPoints(t, reader, side)
		echo := point(t, points, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo",
			"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": protocol.LatestLegacy, "network.transport": "pipe"})
		if echo.Count != 3 {
			t.Errorf("%s echo count %d, want 3", side, echo.Count)
		}
		if _, ok := echo.Attributes.Value("error.type"); ok {
			t.Errorf("%s: a successful call has error.type", side)
		}
		point(t, points, map[string]string{"gen_ai.tool.name": "fail", "error.type": "tool_error"})
		point(t, points, map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "review"})
		point(t, points, map[string]string{"gen_ai.prompt.name": "no-such-prompt", "error.type": "-32602", "rpc.response.status_code": "-32602"})
		point(t, points, map[string]string{"mcp.method.name": "initialize"})
	}

	// Sessions: none ended yet; closing both ends records one on each side.
	if p := histogramPoints(t, serverReader, otelmcp.ServerSessionDuration); len(p) != 0 {
		t.Fatalf("a session duration before any session ended: %v", p)
	}
	_ = cs.Close()
	<-cs.Done()
	<-ss.Done()
	for name, reader := range map[string]*sdkmetric.ManualReader{otelmcp.ServerSessionDuration: serverReader, otelmcp.ClientSessionDuration: clientReader} {
		// The session's watcher records it once Done is closed: poll the reader
		// until it has, within the test's deadline.
		tick := time.NewTicker(5 * time.Millisecond)
		for {
			if p := histogramPoints(t, reader, name); len(p) == 1 && p[0].Count == 1 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: the ended session was not recorded", name)
			case <-tick.C:
			}
		}
		tick.Stop()
	}
}

// The name attribute is params.name as the peer meant it, whatever its
// spelling, and a repeated operation records without allocating.
func TestMetricsNamesAndAllocs(t *testing.T) {
	reader, mw := metered(t, otelmcp.MetricsOptions{Transport: otelmcp.TransportTCP, NetworkProtocol: "http"})
	var result any = json.RawMessage(`{"content":[]}`)
	ok := mw(func(context.Context, *mcp.Call) (any, error) { return result, nil })
	ctx := context.Background()
	long := strings.Repeat("x", 129)
	for _, params := range []string{`{"name":"e\u0063ho"}`, `{"name":"first","name":"dup"}`, `{"name":"` + long + `"}`, `{"name":7}`, `{"name":"broken"`} {
		if _, err := ok(ctx, &mcp.Call{Direction: mcp.Outgoing, Method: protocol.MethodToolsCall, Params: json.RawMessage(params)}); err != nil {
			t.Fatal(err)
		}
	}
	points := histogramPoints(t, reader, otelmcp.ClientOperationDuration)
	point(t, points, map[string]string{"gen_ai.tool.name": "echo", "network.transport": "tcp", "network.protocol.name": "http"})
	point(t, points, map[string]string{"gen_ai.tool.name": "dup"})
	nameless := 0
	for _, p := range points {
		if _, has := p.Attributes.Value("gen_ai.tool.name"); !has {
			nameless += int(p.Count)
		}
	}
	if len(points) != 3 || nameless != 3 {
		t.Errorf("%d points, %d calls without a name; want 3 and 3 (too long, not a string, not valid)", len(points), nameless)
	}

	call := &mcp.Call{Direction: mcp.Outgoing, Method: protocol.MethodToolsCall, Params: json.RawMessage(`{"name":"echo","arguments":{}}`)}
	if n := testing.AllocsPerRun(100, func() { _, _ = ok(ctx, call) }); n != 0 {
		t.Errorf("a repeated tools/call: %v allocs, want 0", n)
	}
}
