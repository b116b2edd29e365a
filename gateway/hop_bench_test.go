package gateway

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

// BenchmarkGatewayHop measures the gateway's own work for one tools/call, in
// one process: a client over an in-memory connection calls demo__echo through
// the gateway, whose upstream is the demo server over Streamable HTTP on
// 127.0.0.1 (also in this process). allocs/op and a CPU profile of it show
// what the hop costs (go test -run '^$' -bench GatewayHop -benchmem
// -cpuprofile cpu.out ./gateway/).
func BenchmarkGatewayHop(b *testing.B) {
	srv, err := demo.NewServer(nil)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(streamable.NewHandler(srv, nil))
	b.Cleanup(ts.Close)
	sc := &upstream.ServerConfig{Name: "demo", Transport: upstream.TransportHTTP, URL: ts.URL}
	gw := startGateway(b, nil, sc)
	cs := connectClient(b, gw, nil)
	ctx := b.Context()
	args := map[string]any{"message": "hi"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, "demo__echo", args)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
